import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Hono, type MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { serveStatic } from 'hono/bun'
import { compress } from 'hono/compress'
import { HTTPException } from 'hono/http-exception'
import { secureHeaders } from 'hono/secure-headers'
import { authRoutes } from './auth/routes.ts'
import { sessionMiddleware } from './auth/session.ts'
import type { AppContext, AppEnv } from './context.ts'
import { fail } from './lib/errors.ts'
import { errorFields, log } from './lib/logger.ts'
import { webdavRoutes } from './webdav/routes.ts'

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request.',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found.',
  405: 'Method not allowed.',
  413: 'Request body is too large.',
  415: 'Unsupported media type.',
  422: 'Invalid input.',
  429: 'Too many attempts, try again later.',
}

/** Structured request log: one line per request with status and duration. */
const requestLog: MiddlewareHandler = async (c, next) => {
  const start = performance.now()
  await next()
  log.info('request', {
    method: c.req.method,
    path: c.req.path,
    status: c.res.status,
    ms: Math.round((performance.now() - start) * 10) / 10,
  })
}

/**
 * State-changing requests must come from our own origin: Sec-Fetch-Site when
 * the browser sends it, else the Origin header's host against ours. Requests
 * with neither (curl, scripts, tests) carry no ambient browser credentials risk
 * beyond what the cookie's SameSite=Lax already stops.
 */
function sameOrigin(trustProxy: boolean): MiddlewareHandler {
  return async (c, next) => {
    if (!/^(GET|HEAD|OPTIONS)$/.test(c.req.method)) {
      const site = c.req.header('sec-fetch-site')
      const origin = c.req.header('origin')
      if (site && site !== 'same-origin' && site !== 'none') fail(403, 'Cross-origin request refused.')
      if (!site && origin && origin !== 'null') {
        const host = (trustProxy && c.req.header('x-forwarded-host')) || c.req.header('host') || new URL(c.req.url).host
        let originHost = ''
        try {
          originHost = new URL(origin).host
        } catch {}
        if (originHost !== host) fail(403, 'Cross-origin request refused.')
      }
      if (origin === 'null') fail(403, 'Cross-origin request refused.')
    }
    await next()
  }
}

export function createApp(ctx: AppContext, opts: { webRoot?: string } = {}) {
  const { env } = ctx
  const api = new Hono<AppEnv>()
    .use(sameOrigin(env.TRUST_PROXY))
    .use(async (c, next) => {
      // uploads are streamed and bounded by their own limit; everything else is small JSON
      const multipart = c.req.header('content-type')?.startsWith('multipart/form-data')
      return bodyLimit({ maxSize: multipart ? env.MAX_UPLOAD_BYTES : env.MAX_JSON_BYTES })(c, next)
    })
    .use(sessionMiddleware(ctx.db, env.TRUST_PROXY))
    .get('/health', async (c) => {
      const checks: Record<string, string> = {}
      let ok = true
      for (const [name, check] of Object.entries(ctx.health)) {
        try {
          await check()
          checks[name] = 'ok'
        } catch (err) {
          ok = false
          checks[name] = err instanceof Error ? err.message : 'failed'
        }
      }
      return c.json({ status: ok ? 'ok' : 'degraded', ...checks }, ok ? 200 : 503)
    })
    .route('/auth', authRoutes(ctx))
    .route('/webdav', webdavRoutes(ctx))

  const app = new Hono<AppEnv>()
    .use(requestLog)
    .use(
      secureHeaders({
        contentSecurityPolicy: {
          defaultSrc: ["'self'"],
          imgSrc: ["'self'", 'data:', 'blob:', 'https:'],
          mediaSrc: ["'self'", 'blob:', 'https:', 'http:'],
          frameSrc: ['https://www.youtube.com', 'https://www.youtube-nocookie.com'],
          scriptSrc: ["'self'", 'https://www.youtube.com', 'https://s.ytimg.com'],
          styleSrc: ["'self'", "'unsafe-inline'"],
          connectSrc: ["'self'", 'ws:', 'wss:'],
          objectSrc: ["'none'"],
          baseUri: ["'self'"],
          frameAncestors: ["'none'"],
        },
        crossOriginEmbedderPolicy: false,
      }),
    )
    .route('/api', api)

  app.all('/api/*', () => fail(404, 'Not found.'))

  const webRoot = opts.webRoot && resolve(opts.webRoot)
  if (webRoot && existsSync(join(webRoot, 'index.html'))) {
    app.use('*', compress())
    app.use('/assets/*', async (c, next) => {
      await next()
      if (c.res.ok) c.res.headers.set('Cache-Control', 'public, max-age=31536000, immutable')
    })
    app.use('*', serveStatic({ root: webRoot }))
    // SPA fallback: every other GET renders the app, which routes on the client
    app.get('*', serveStatic({ path: join(webRoot, 'index.html') }))
  }

  app.notFound((c) => c.json({ detail: 'Not found.' }, 404))
  app.onError((err, c) => {
    if (err instanceof HTTPException) {
      const headers = new Headers(err.res?.headers)
      headers.delete('content-type')
      headers.delete('content-length')
      const detail = err.message || STATUS_TEXT[err.status] || 'Request failed.'
      const res = c.json({ detail }, err.status)
      headers.forEach((v, k) => res.headers.set(k, v))
      return res
    }
    log.error('unhandled error', { method: c.req.method, path: c.req.path, ...errorFields(err) })
    return c.json({ detail: 'Internal server error.' }, 500)
  })
  return app
}

export type App = ReturnType<typeof createApp>
/** Typed API surface for `hc` on the web side. */
export type AppType = App
