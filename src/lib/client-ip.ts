import type { Context } from 'hono'
import { getConnInfo } from 'hono/bun'

/** The caller's address: X-Forwarded-For's first hop behind a trusted proxy, else the socket's. */
export function clientIp(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',')[0]?.trim()
    if (forwarded) return forwarded
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown'
  } catch {
    // app.request() in tests has no socket
    return 'local'
  }
}
