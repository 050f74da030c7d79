import type { ReactNode } from 'react'
import { styled } from 'styled-system/jsx'
import { CardBody, CardRoot } from '~/components/ui/card.tsx'
import { Heading } from '~/components/ui/heading.tsx'

/** Layout of a static legal text: title, date, then sections. */
export function LegalDocument({ title, updated, children }: { title: string; updated: string; children: ReactNode }) {
  return (
    <styled.article maxW="3xl" mx="auto" width="full">
      <CardRoot>
        <CardBody pt="8" display="flex" flexDirection="column" gap="6">
          <styled.header display="flex" flexDirection="column" gap="1">
            <Heading>{title}</Heading>
            <styled.p color="fg.muted" textStyle="sm">
              Last updated {updated}
            </styled.p>
          </styled.header>
          {children}
        </CardBody>
      </CardRoot>
    </styled.article>
  )
}

/** One numbered section of a legal text. */
export function LegalSection({ title, children }: { title: string; children: ReactNode }) {
  return (
    <styled.section display="flex" flexDirection="column" gap="2" color="fg.muted" textStyle="sm" lineHeight="relaxed">
      <Heading as="h2" size="md" color="fg.default">
        {title}
      </Heading>
      {children}
    </styled.section>
  )
}
