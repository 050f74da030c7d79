import { Hono, type Context, type MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { compress } from 'hono/compress'
import { HTTPException } from 'hono/http-exception'
import { secureHeaders } from 'hono/secure-headers'
import { authRoutes } from './auth/routes.ts'
import { readSession } from './auth/session.ts'
import { bearerToken } from './auth/bearer.ts'
import type { AppContext, AppEnv } from './context.ts'
import { fail } from './lib/errors.ts'
import { errorFields, log, redactPath } from './lib/logger.ts'
import { DATABASE_RETRY_AFTER_SECONDS, DATABASE_UNAVAILABLE_DETAIL, DISK_FULL_DETAIL, isDatabaseUnavailable, isDiskFull } from './lib/faults.ts'
import { limitStreamedBody, MULTIPART_FIELDS_ALLOWANCE } from './lib/multipart.ts'
import { smallBody } from './lib/small-body.ts'
import { noteForwarded, untrustedForwarded } from './lib/proxy-notice.ts'
import { MAX_COOKIES_BYTES } from './tools/cookies.ts'
import { webdavRoutes } from './webdav/routes.ts'
import { musicRoutes } from './music/routes.ts'
import { youtubeRoutes } from './youtube/routes.ts'
import { listenRoutes } from './youtube/listen/routes.ts'
import { personalRoutes } from './youtube/personal/routes.ts'
import { keepRoutes } from './youtube/keep/routes.ts'
import { feedRoutes } from './youtube/listen/feed-routes.ts'
import { websubRoutes } from './youtube/websub/routes.ts'
import { adminRoutes } from './admin/routes.ts'
import { notificationRoutes } from './notifications/routes.ts'
import { webFiles } from './web-files.ts'
import { isOwnOrigin } from './lib/origin.ts'
import { metricsRoutes, recordRequest } from './metrics-routes.ts'
import { MemoTrieRouter } from './lib/memo-router.ts'
import { appPasswordRoutes, restRoutes } from './subsonic/routes.ts'

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

/**
 * API responses are JSON or files, never pages: they get a short fixed set of
 * security headers (nothing may render or frame them) instead of the page
 * policy below, which costs several microseconds per request to build and
 * send. See docs/decisions/006-api-security-headers.md.
 */
const API_SECURITY_HEADERS: [string, string][] = [
  ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  ['Referrer-Policy', 'no-referrer'],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
]


/**
 * State-changing requests must come from our own origin: Sec-Fetch-Site when
 * the browser sends it, else the Origin header's host against ours. Requests
 * with neither (curl, scripts, tests) carry no ambient browser credentials risk
 * beyond what the cookie's SameSite=Lax already stops.
 */
function checkSameOrigin(c: Context, trustProxy: boolean) {
  const site = c.req.header('sec-fetch-site')
  const origin = c.req.header('origin')
  if (site && site !== 'same-origin' && site !== 'none') fail(403, 'Cross-origin request refused.')
  if (!site && origin && origin !== 'null') {
    if (!isOwnOrigin(origin, c.req, trustProxy)) fail(403, 'Cross-origin request refused.')
  }
  if (origin === 'null') fail(403, 'Cross-origin request refused.')
}

export function createApp(ctx: AppContext, opts: { webRoot?: string } = {}) {
  const { env } = ctx
  /**
   * Every /api request, in one layer (each layer costs a dispatch on the hottest path): the
   * origin check for state-changing requests, the session, then the body limits.
   */
  const guard: MiddlewareHandler<AppEnv> = (c, next) => {
    const method = c.req.method
    // GET and HEAD carry no body we read and change nothing: the session check's hot path, with
    // no promise of its own when the session cache vouches for the cookie
    if (method === 'GET' || method === 'HEAD') {
      const reading = readSession(c, ctx.db, env.TRUST_PROXY)
      return reading ? reading.then(next) : next()
    }
    return guardWrite(c, next)
  }
  const guardWrite: MiddlewareHandler<AppEnv> = async (c, next) => {
    const method = c.req.method
    // a Bearer request carries no cookie (readSession ignores it then): nothing to forge
    if (method !== 'OPTIONS' && bearerToken(c) === null) checkSameOrigin(c, env.TRUST_PROXY)
    await readSession(c, ctx.db, env.TRUST_PROXY)
    // uploads are streamed and bounded by their own limit (counted, never buffered); everything else is small JSON
    if (c.req.header('content-type')?.startsWith('multipart/form-data')) {
      c.req.raw = limitStreamedBody(c.req.raw, env.MAX_UPLOAD_BYTES + MULTIPART_FIELDS_ALLOWANCE)
      return next()
    }
    // the admin's cookies.txt may be up to 1 MB (docs/api.md, Admin)
    if (c.req.path === '/api/admin/tools/cookies') {
      c.req.raw = limitStreamedBody(c.req.raw, MAX_COOKIES_BYTES)
      return next()
    }
    return jsonLimit(c, next)
  }
  const jsonLimit = bodyLimit({ maxSize: env.MAX_JSON_BYTES })
  const api = new Hono<AppEnv>()
    .use(guard)
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
    .route('/auth/subsonic', appPasswordRoutes(ctx))
    .route('/auth', authRoutes(ctx))
    .route('/webdav', webdavRoutes(ctx))
    .route('/music', musicRoutes(ctx))
    .route('/youtube', youtubeRoutes(ctx))
    .route('/youtube', listenRoutes(ctx))
    .route('/youtube', personalRoutes(ctx))
    .route('/youtube', keepRoutes(ctx))
    .route('/admin', adminRoutes(ctx))
    .route('/notifications', notificationRoutes(ctx))

  // the IFrame Player API's origin serves its script and the player frames it creates
  const iframeApiOrigin = new URL(env.YOUTUBE_IFRAME_API_URL).origin
  const pageSecurityHeaders = secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      // http: too, so the music form can preview artwork from http links (as media-src allows),
      // which also covers the fake YouTube's thumbnails in demo/test mode
      imgSrc: ["'self'", 'data:', 'blob:', 'https:', 'http:'],
      mediaSrc: ["'self'", 'blob:', 'https:', 'http:'],
      frameSrc: [...new Set(['https://www.youtube.com', 'https://www.youtube-nocookie.com', iframeApiOrigin])],
      scriptSrc: [...new Set(["'self'", 'https://www.youtube.com', 'https://s.ytimg.com', iframeApiOrigin])],
      styleSrc: ["'self'", "'unsafe-inline'"],
      connectSrc: ["'self'", 'ws:', 'wss:'],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      frameAncestors: ["'none'"],
    },
    crossOriginEmbedderPolicy: false,
  })
  /**
   * The edge of every request, in one middleware (each extra layer costs a dispatch on the
   * hottest path): security headers (short fixed set for the API, the page policy otherwise),
   * then metrics and one structured log line with status and duration.
   */
  const edge: MiddlewareHandler = async (c, next) => {
    const started = performance.now()
    // a proxy in front that is not trusted: said once (src/lib/proxy-notice.ts)
    if (!env.TRUST_PROXY && !untrustedForwarded(env)) noteForwarded(env, c.req.header('x-forwarded-for'))
    if (c.req.path.startsWith('/api/')) {
      await next()
      const headers = c.res.headers
      for (const [name, value] of API_SECURITY_HEADERS) headers.set(name, value)
    } else if (c.req.path.startsWith('/rest/')) await next() // the Subsonic API sets its own (src/subsonic/routes.ts)
    else await pageSecurityHeaders(c, next)
    recordRequest(c, started)
    log.request(c.req.method, c.req.path, c.res.status, Math.round((performance.now() - started) * 10) / 10)
  }
  // the sub-apps' routes are copied into this app's router: the only one that matches
  const app = new Hono<AppEnv>({ router: new MemoTrieRouter() })
    .use(edge)
    .route('/api', api)
    .route('/metrics', metricsRoutes(ctx))
    // music players (Subsonic API): outside /api, no cookies, no CSRF check (credentials ride in each request);
    // bodies over 64 KB refused as they stream (src/lib/small-body.ts, answered as a Subsonic error)
    .route('/rest', restRoutes(ctx))
    // outside /api every route that may get a body refuses one over 64 KB before reading more of it
    // (no sign-in needed to send one): the feeds, and WebSub's callbacks
    .use('/feeds/*', smallBody())
    .use('/websub/*', smallBody())
    // private podcast feeds: no cookie, the per-user secret in the path is the credential
    .route('/feeds', feedRoutes(ctx))
    // the WebSub hub's callbacks: the random token in the path names the subscription
    .route('/websub', websubRoutes(ctx))

  app.all('/api/*', () => fail(404, 'Not found.'))
  // the web player loads the IFrame Player API from here: the configured script, one hop away
  // (docs/decisions/092)
  app.get('/iframe_api', (c) => c.redirect(env.YOUTUBE_IFRAME_API_URL, 302))

  // web/dist on disk, or the files embedded in the compiled binary
  const web = webFiles(opts.webRoot)
  if (web) {
    app.use('*', compress())
    app.use('/assets/*', async (c, next) => {
      await next()
      if (c.res.ok) c.res.headers.set('Cache-Control', 'public, max-age=31536000, immutable')
    })
    app.use('*', web.files)
    // SPA fallback: every other GET renders the app, which routes on the client
    app.get('*', web.index)
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
    // the database's own refusal of NUL or a broken encoding, for any text no schema caught
    if (['22021', '22P05'].includes(dbErrorCode(err) ?? '')) return c.json({ detail: 'Text must not contain control characters.' }, 422)
    // the machine, not the request: a full disk, a database that cannot be reached now (src/lib/faults.ts)
    if (isDiskFull(err)) {
      log.error('disk full', { method: c.req.method, path: redactPath(c.req.path), ...errorFields(err) })
      return c.json({ detail: DISK_FULL_DETAIL }, 507)
    }
    if (isDatabaseUnavailable(err)) {
      log.warn('database unavailable', { method: c.req.method, path: redactPath(c.req.path), ...errorFields(err) })
      c.header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS))
      return c.json({ detail: DATABASE_UNAVAILABLE_DETAIL }, 503)
    }
    log.error('unhandled error', { method: c.req.method, path: redactPath(c.req.path), ...errorFields(err) })
    return c.json({ detail: 'Internal server error.' }, 500)
  })
  return app
}

function dbErrorCode(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 3; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string') return e.code
  }
  return undefined
}

/** Typed API surface for `hc` on the web side and the test Client. */
export type AppType = ReturnType<typeof createApp>
