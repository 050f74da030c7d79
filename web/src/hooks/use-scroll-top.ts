import { useRouterState } from '@tanstack/react-router'
import { useEffect } from 'react'

/** SPEC 1: scroll smoothly to the top whenever the path changes. */
export function useScrollTopOnNavigate() {
  const pathname = useRouterState({ select: (s) => s.location.pathname })
  useEffect(() => {
    window.scrollTo({ top: 0, behavior: 'smooth' })
  }, [pathname])
}
