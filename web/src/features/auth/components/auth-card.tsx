import type { ReactNode } from 'react'
import { styled } from 'styled-system/jsx'
import { CardBody, CardDescription, CardHeader, CardRoot, CardTitle } from '~/components/ui/card.tsx'

/** The centred card holding each public account form. */
export function AuthCard({ title, description, children }: { title: string; description?: ReactNode; children: ReactNode }) {
  return (
    <styled.div maxW="md" mx="auto" width="full">
      <CardRoot>
        <CardHeader>
          <CardTitle as="h1" textStyle="2xl">{title}</CardTitle>
          {description && <CardDescription>{description}</CardDescription>}
        </CardHeader>
        <CardBody>{children}</CardBody>
      </CardRoot>
    </styled.div>
  )
}
