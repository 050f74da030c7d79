import type { Context, MiddlewareHandler } from 'hono'

/** The largest body a route outside /api reads: a Subsonic form POST, a WebSub notification (docs/api.md). */
export const SMALL_BODY_BYTES = 64 * 1024

const tooLarge = (c: Context) => c.json({ detail: 'Request body is too large.' }, 413)

/**
 * Body limit for the routes outside /api (`/rest`, `/feeds`, `/websub`), which anyone may reach
 * before signing in (docs/decisions/225-small-bodies-outside-api.md): a declared Content-Length
 * over `maxBytes` is refused at once; a chunked body is read here as it streams, and refused as
 * soon as it passes `maxBytes`, the rest never read (the server then closes the connection).
 * A body within the limit is handed on from memory (at most `maxBytes`). `refuse` answers
 * (413 `{detail}` unless the area answers its own way, as /rest does).
 */
export function smallBody(maxBytes = SMALL_BODY_BYTES, refuse: (c: Context) => Response | Promise<Response> = tooLarge): MiddlewareHandler {
  return async (c, next) => {
    const req = c.req.raw
    // no body (every GET a player or podcast app sends): nothing to count
    if (!req.body) return next()
    const declared = req.headers.get('content-length')
    if (declared !== null && !req.headers.has('transfer-encoding')) {
      if (Number(declared) > maxBytes) return refuse(c)
      return next()
    }
    const reader = req.body.getReader()
    const chunks: Uint8Array[] = []
    let size = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.length
      if (size > maxBytes) {
        await reader.cancel().catch(() => {})
        return refuse(c)
      }
      chunks.push(value)
    }
    // a GET or HEAD may not carry a body onward (and no route reads one): the read one is dropped
    if (req.method !== 'GET' && req.method !== 'HEAD') c.req.raw = new Request(req, { body: Buffer.concat(chunks) })
    return next()
  }
}
