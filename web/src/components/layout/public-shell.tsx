import type { ReactNode } from 'react'
import { styled } from 'styled-system/jsx'
import { Header } from './header.tsx'
import { HEADER_HEIGHT } from './sizes.ts'
import { MAIN_ID, SkipLink } from './skip-link.tsx'

/** Shell of the public pages (login, sign-up, verification, legal): header only. */
export function PublicShell({ children }: { children: ReactNode }) {
  return (
    <styled.div minH="100dvh" style={{ paddingTop: HEADER_HEIGHT }}>
      <SkipLink />
      <Header />
      <styled.main id={MAIN_ID} tabIndex={-1} px="4" py={{ base: '8', md: '12' }}>
        {children}
      </styled.main>
    </styled.div>
  )
}
