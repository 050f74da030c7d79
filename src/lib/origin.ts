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

/** Hosts that mean "every address": a link names `localhost` instead. */
const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::', '[::]', '::0'])

/**
 * The origin links in mails point at: PUBLIC_URL when set, else the address the
 * server listens on (`server`: the Bun server Hono hands a route as `c.env`;
 * absent under `app.request()`, then HOST and PORT), with `localhost` for a
 * wildcard address. Never a request's Host or X-Forwarded-Host: a sign-up sent
 * with `Host: evil.example` would otherwise mail its owner a link to that site.
 * See docs/decisions/159-mail-links-without-public-url.md.
 */
export function mailOrigin(server: unknown, env: { PUBLIC_URL?: string; HOST: string; PORT: number }): string {
  if (env.PUBLIC_URL) return env.PUBLIC_URL.replace(/\/$/, '')
  return listenOrigin(server, env)
}

/** `http://<listening host>:<port>` (see mailOrigin). */
export function listenOrigin(server: unknown, env: { HOST: string; PORT: number }): string {
  const s = (server && typeof server === 'object' ? server : {}) as { hostname?: unknown; port?: unknown }
  const hostname = typeof s.hostname === 'string' ? s.hostname : env.HOST
  const port = typeof s.port === 'number' && s.port > 0 ? s.port : env.PORT
  const host = WILDCARD_HOSTS.has(hostname) ? 'localhost' : hostname.includes(':') && !hostname.startsWith('[') ? `[${hostname}]` : hostname
  return port === 80 ? `http://${host}` : `http://${host}:${port}`
}

/** The origin the client reached: PUBLIC_URL when set, else the request's (OIDC redirect URI; not for mail links, see mailOrigin). */
export function publicOrigin(req: RequestLike, env: { PUBLIC_URL?: string; TRUST_PROXY: boolean }): string {
  if (env.PUBLIC_URL) return env.PUBLIC_URL.replace(/\/$/, '')
  return `${requestProtocol(req, env.TRUST_PROXY)}://${requestHost(req, env.TRUST_PROXY)}`
}

/** Whether an Origin header names this server (same host; a browser page on another site does not). */
export function isOwnOrigin(origin: string, req: RequestLike, trustProxy: boolean): boolean {
  return URL.parse(origin)?.host === requestHost(req, trustProxy)
}

/** A link to one of this server's pages, when PUBLIC_URL says where it is (for notifications). */
export function pageUrl(ctx: { env: { PUBLIC_URL?: string } }, path: string): string | null {
  return ctx.env.PUBLIC_URL ? new URL(path, ctx.env.PUBLIC_URL).toString() : null
}
