import type { ReactNode } from 'react'
import { styled } from 'styled-system/jsx'
import { Heading } from '~/components/ui/heading.tsx'

export type PageProps = {
  /** The page heading (the document title comes from the route's `head`). */
  title: ReactNode
  /** Controls at the right of the heading (buttons, toggles). */
  actions?: ReactNode
  children?: ReactNode
}

/** Standard page body inside the shell: heading row, then content. */
export function Page({ title, actions, children }: PageProps) {
  return (
    <styled.div display="flex" flexDirection="column" gap="6">
      <styled.div display="flex" alignItems="center" justifyContent="space-between" gap="4" flexWrap="wrap">
        <Heading>{title}</Heading>
        {actions && (
          <styled.div display="flex" gap="3" alignItems="center">
            {actions}
          </styled.div>
        )}
      </styled.div>
      {children}
    </styled.div>
  )
}
