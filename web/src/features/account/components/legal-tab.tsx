import { FileTextIcon, ShieldCheckIcon } from 'lucide-react'
import { styled } from 'styled-system/jsx'
import { CardBody, CardRoot } from '~/components/ui/card.tsx'
import { TextLink } from '~/components/ui/text-link.tsx'

/** Links to the legal texts. */
export function LegalTab() {
  return (
    <CardRoot>
      <CardBody pt="6">
        <styled.ul display="flex" flexDirection="column" gap="3">
          <li>
            <TextLink to="/terms" gap="2">
              <FileTextIcon size={16} aria-hidden />
              Terms of Service
            </TextLink>
          </li>
          <li>
            <TextLink to="/privacy" gap="2">
              <ShieldCheckIcon size={16} aria-hidden />
              Privacy Policy
            </TextLink>
          </li>
        </styled.ul>
      </CardBody>
    </CardRoot>
  )
}
