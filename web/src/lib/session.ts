import { queryOptions } from '@tanstack/react-query'
import { api, request } from './api.ts'
import { queryKeys } from './query-keys.ts'

/**
 * The session check (GET /api/auth/session): the signed-in user's email and
 * admin flag. Shared by the protected layout route and any page showing the user.
 */
export const sessionQuery = queryOptions({
  queryKey: queryKeys.user.session(),
  queryFn: () => request(api.auth.session.$get()),
  retry: false,
})

export type SessionUser = { id: string; email: string; admin: boolean }

/** Only same-site relative paths may be a `next` target, never another origin. */
export function safeNext(next: unknown): string | undefined {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return undefined
  return next
}
