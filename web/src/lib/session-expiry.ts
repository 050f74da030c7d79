import type { QueryClient } from '@tanstack/react-query'
import type { AnyRouter } from '@tanstack/react-router'
import { isStatus } from './api.ts'
import { queryKeys } from './query-keys.ts'

const PROTECTED_ROUTE_ID = '/_app'

/**
 * When any call made from the signed-in area answers 401 (session expired or
 * revoked), drop the cached session and re-run the route guards, which send
 * the user to /login with the current page as `next`.
 */
export function watchSessionExpiry(queryClient: QueryClient, router: AnyRouter) {
  const onUnauthorized = (err: unknown) => {
    if (!isStatus(err, 401)) return
    // while a navigation runs, the route guard itself is handling the session
    if (router.state.status !== 'idle' || router.state.isLoading) return
    if (!router.state.matches.some((m: { routeId: string }) => m.routeId === PROTECTED_ROUTE_ID)) return
    queryClient.removeQueries({ queryKey: queryKeys.user.all })
    void router.invalidate()
  }
  queryClient.getQueryCache().subscribe((event) => {
    if (event.type === 'updated' && event.action.type === 'error') onUnauthorized(event.action.error)
  })
  queryClient.getMutationCache().subscribe((event) => {
    if (event.type === 'updated' && event.action.type === 'error') onUnauthorized(event.action.error)
  })
}
