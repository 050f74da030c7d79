import { useRouterState } from '@tanstack/react-router'
import { type ReactNode, useEffect, useState } from 'react'
import { styled } from 'styled-system/jsx'
import { useSnapshot } from 'valtio'
import { PlayerFooter } from '~/player/components/player-footer.tsx'
import { playerStore } from '~/player/store.ts'
import { Header } from './header.tsx'
import { SideNav } from './side-nav.tsx'
import { MAIN_ID, SkipLink } from './skip-link.tsx'
import { FOOTER_HEIGHT, HEADER_HEIGHT, NAVBAR_WIDTH } from './sizes.ts'

/**
 * Shell of the signed-in area (docs/product.md#layout): 60 px header, 200 px side navigation
 * (burger below md), and a 100 px footer only while autoplay is on.
 */
export function AppShell({ children, admin = false }: { children: ReactNode; admin?: boolean }) {
  const { autoplay } = useSnapshot(playerStore)
  const [navOpen, setNavOpen] = useState(false)
  const pathname = useRouterState({ select: (s) => s.location.pathname })
  useEffect(() => setNavOpen(false), [pathname])
  // the phone menu closes with Escape, giving focus back to the burger
  useEffect(() => {
    if (!navOpen) return
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return
      setNavOpen(false)
      document.querySelector<HTMLElement>('[aria-controls=side-nav]')?.focus()
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [navOpen])

  const footerHeight = autoplay ? FOOTER_HEIGHT : 0
  // nothing focused hides under the footer player (the header's share is in the global CSS)
  useEffect(() => {
    document.documentElement.style.scrollPaddingBottom = `${footerHeight + 16}px`
    return () => {
      document.documentElement.style.scrollPaddingBottom = ''
    }
  }, [footerHeight])
  return (
    <styled.div
      minH="100dvh"
      style={{
        ['--header-height' as string]: `${HEADER_HEIGHT}px`,
        ['--navbar-width' as string]: `${NAVBAR_WIDTH}px`,
        ['--footer-height' as string]: `${footerHeight}px`,
      }}
    >
      <SkipLink />
      <Header navOpen={navOpen} onToggleNav={() => setNavOpen((o) => !o)} />
      <SideNav open={navOpen} admin={admin} />
      <styled.main
        id={MAIN_ID}
        tabIndex={-1}
        pt="var(--header-height)"
        pb="var(--footer-height)"
        ps={{ base: '0', md: 'var(--navbar-width)' }}
        minH="100dvh"
      >
        <styled.div maxW="8xl" mx="auto" px={{ base: '4', md: '8' }} py={{ base: '6', md: '8' }}>
          {children}
        </styled.div>
      </styled.main>
      <styled.footer
        position="fixed"
        bottom="0"
        insetX="0"
        zIndex="docked"
        overflow="hidden"
        bg="bg.default"
        borderTopWidth={autoplay ? '1px' : '0'}
        height="var(--footer-height)"
        transition="height 0.2s ease"
        aria-hidden={!autoplay}
      >
        {autoplay && <PlayerFooter />}
      </styled.footer>
    </styled.div>
  )
}
