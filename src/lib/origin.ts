// The server's own origin as the client sees it: one place for the PUBLIC_URL
// setting and the X-Forwarded-* headers a trusted proxy (TRUST_PROXY) sets.

/** What this module reads of a request (a Hono `c.req` fits). */
export interface RequestLike {
  url: string
  header(name: string): string | undefined
}

/** The first value of an X-Forwarded-* header: a chain of proxies sends `a, b`, the first is the client's. */
function forwarded(req: RequestLike, name: string): string | undefined {
  return req.header(name)?.split(',')[0]?.trim() || undefined
}

/** Scheme the client used, without the colon (`https`). */
export function requestProtocol(req: RequestLike, trustProxy: boolean): string {
  return (trustProxy && forwarded(req, 'x-forwarded-proto')) || new URL(req.url).protocol.slice(0, -1)
}

/** `host[:port]` the client asked for. */
export function requestHost(req: RequestLike, trustProxy: boolean): string {
  return (trustProxy && forwarded(req, 'x-forwarded-host')) || req.header('host') || new URL(req.url).host
}

/** The origin links in mails point at: PUBLIC_URL when set, else the one the request came to. */
export function publicOrigin(req: RequestLike, env: { PUBLIC_URL?: string; TRUST_PROXY: boolean }): string {
  if (env.PUBLIC_URL) return env.PUBLIC_URL.replace(/\/$/, '')
  return `${requestProtocol(req, env.TRUST_PROXY)}://${requestHost(req, env.TRUST_PROXY)}`
}

/** Whether an Origin header names this server (same host; a browser page on another site does not). */
export function isOwnOrigin(origin: string, req: RequestLike, trustProxy: boolean): boolean {
  return URL.parse(origin)?.host === requestHost(req, trustProxy)
}
