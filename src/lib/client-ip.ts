import type { Context } from 'hono'
import { getConnInfo } from 'hono/bun'

/**
 * The caller's address: behind a trusted proxy, the last X-Forwarded-For
 * entry (the one our proxy appended; earlier entries are whatever the client
 * sent and can be forged), else the socket's. See docs/decisions/003-rate-limit-keys.md.
 */
export function clientIp(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim()
    if (forwarded) return forwarded
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown'
  } catch {
    // app.request() in tests has no socket
    return 'local'
  }
}
