import type { ReactNode } from 'react'
import { styled } from 'styled-system/jsx'
import { Header } from './header.tsx'
import { HEADER_HEIGHT } from './sizes.ts'

/** Shell of the public pages (login, sign-up, verification, legal): header only. */
export function PublicShell({ children }: { children: ReactNode }) {
  return (
    <styled.div minH="100dvh" style={{ paddingTop: HEADER_HEIGHT }}>
      <Header />
      <styled.main px="4" py={{ base: '8', md: '12' }}>
        {children}
      </styled.main>
    </styled.div>
  )
}
