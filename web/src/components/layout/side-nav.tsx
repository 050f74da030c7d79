import { Link, type LinkProps } from '@tanstack/react-router'
import { CircleUserIcon, ListVideoIcon, MusicIcon, ShieldIcon, TvMinimalPlayIcon } from 'lucide-react'
import type { ReactNode } from 'react'
import { css } from 'styled-system/css'
import { styled } from 'styled-system/jsx'
import { HEADER_HEIGHT, NAVBAR_WIDTH } from './sizes.ts'

const item = css({
  display: 'flex',
  alignItems: 'center',
  gap: '2.5',
  px: '2.5',
  py: '2.5',
  whiteSpace: 'nowrap',
  borderRadius: 'l2',
  color: 'fg.muted',
  fontWeight: 'medium',
  textStyle: 'sm',
  transitionDuration: 'normal',
  transitionProperty: 'background, color',
  _hover: { bg: 'gray.a3', color: 'fg.default' },
  _focusVisible: { outline: '2px solid', outlineColor: 'colorPalette.default', outlineOffset: '-2px' },
  '&[data-status=active]': { bg: 'colorPalette.a3', color: 'colorPalette.text' },
  '& svg': { width: '4.5', height: '4.5', flexShrink: 0 },
})

function NavItem({ to, icon, children }: { to: LinkProps['to']; icon: ReactNode; children: ReactNode }) {
  return (
    <Link to={to} className={item}>
      {icon}
      {children}
    </Link>
  )
}

export type SideNavProps = {
  /** Open as an overlay below the md breakpoint (always shown from md up). */
  open: boolean
  /** Shows the Admin entry (admins only). */
  admin?: boolean
}

/** docs/product.md#side-navigation: 200 px wide, collapsing into the burger below the md breakpoint. */
export function SideNav({ open, admin = false }: SideNavProps) {
  return (
    <styled.nav
      id="side-nav"
      aria-label="Main"
      position="fixed"
      left="0"
      zIndex="sticky"
      display={{ base: open ? 'flex' : 'none', md: 'flex' }}
      flexDirection="column"
      justifyContent="space-between"
      gap="2"
      p="3"
      bg="bg.default"
      borderRightWidth="1px"
      width={{ base: 'full', md: 'var(--navbar-width)' }}
      style={{ top: HEADER_HEIGHT, bottom: 'var(--footer-height)', ['--navbar-width' as string]: `${NAVBAR_WIDTH}px` }}
    >
      <styled.div display="flex" flexDirection="column" gap="1">
        <NavItem to="/music/downloader" icon={<MusicIcon />}>
          Music Downloader
        </NavItem>
        <NavItem to="/youtube/videos" icon={<TvMinimalPlayIcon />}>
          Videos
        </NavItem>
        <NavItem to="/youtube/subscriptions" icon={<ListVideoIcon />}>
          Subscriptions
        </NavItem>
      </styled.div>
      <styled.div borderTopWidth="1px" pt="2" display="flex" flexDirection="column" gap="1">
        {admin && (
          <NavItem to="/admin" icon={<ShieldIcon />}>
            Admin
          </NavItem>
        )}
        <NavItem to="/account" icon={<CircleUserIcon />}>
          Account
        </NavItem>
      </styled.div>
    </styled.nav>
  )
}
