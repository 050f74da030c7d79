import { useRouterState } from '@tanstack/react-router'
import { useEffect } from 'react'

/** docs/product.md#layout: scroll smoothly to the top whenever the path changes. */
export function useScrollTopOnNavigate() {
  const pathname = useRouterState({ select: (s) => s.location.pathname })
  useEffect(() => {
    window.scrollTo({ top: 0, behavior: 'smooth' })
  }, [pathname])
}
