import { Link } from '@tanstack/react-router'
import { MenuIcon, XIcon } from 'lucide-react'
import type { ReactNode } from 'react'
import { styled } from 'styled-system/jsx'
import { IconButton } from '~/components/ui/button.tsx'
import { Logo } from './logo.tsx'
import { HEADER_HEIGHT } from './sizes.ts'

export type HeaderProps = {
  /** Shows the burger that opens the side navigation below the md breakpoint. */
  navOpen?: boolean
  onToggleNav?: () => void
  end?: ReactNode
}

/** Fixed 60 px header with logo and product name. */
export function Header({ navOpen, onToggleNav, end }: HeaderProps) {
  return (
    <styled.header
      position="fixed"
      top="0"
      insetX="0"
      zIndex="docked"
      display="flex"
      alignItems="center"
      gap="3"
      px="4"
      bg="bg.default"
      borderBottomWidth="1px"
      style={{ height: HEADER_HEIGHT }}
    >
      {onToggleNav && (
        <IconButton
          aria-label={navOpen ? 'Close navigation' : 'Open navigation'}
          aria-expanded={navOpen}
          aria-controls="side-nav"
          variant="ghost"
          size="sm"
          hideFrom="md"
          onClick={onToggleNav}
        >
          {navOpen ? <XIcon /> : <MenuIcon />}
        </IconButton>
      )}
      <Link to="/" aria-label="Tunefeed home">
        <styled.span display="inline-flex" alignItems="center" gap="2.5">
          <Logo />
          <styled.span fontWeight="bold" textStyle="xl" letterSpacing="tight">
            Tunefeed
          </styled.span>
        </styled.span>
      </Link>
      <styled.div ms="auto" display="flex" alignItems="center" gap="2">
        {end}
      </styled.div>
    </styled.header>
  )
}
