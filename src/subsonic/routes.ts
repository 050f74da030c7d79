import { Hono, type Context } from 'hono'
import type { AppContext, AppEnv } from '../context.ts'
import { errorFields, log } from '../lib/logger.ts'
import { requireSession } from '../auth/bearer.ts'
import { currentUser } from '../auth/session.ts'
import { embedded } from '../embedded.ts'
import pkg from '../../package.json' with { type: 'json' }
import { appPasswordStatus, createAppPassword, deleteAppPassword, signIn } from './auth.ts'
import { ErrorGeneric } from './errors.ts'
import { type Answer, type Envelope, type SubsonicFailure, toJson, toXml } from './format.ts'
import { METHODS } from './methods/index.ts'
import { SMALL_BODY_BYTES, smallBody } from '../lib/small-body.ts'
import { Params, SubsonicError } from './params.ts'

export const API_VERSION = '1.16.1'
/** Methods that answer without signing in (OpenSubsonic: getOpenSubsonicExtensions is public). */
const PUBLIC = new Set(['getOpenSubsonicExtensions'])
const BY_LOWER = new Map(Object.keys(METHODS).map((name) => [name.toLowerCase(), name]))

/** Headers of every /rest answer: no page to render, usable from a web player on another origin (no cookies are read here). */
const REST_HEADERS: [string, string][] = [
  ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'no-referrer'],
  ['Access-Control-Allow-Origin', '*'],
]

async function readParams(c: Context, maxBytes: number): Promise<Params> {
  const params = new URLSearchParams(new URL(c.req.url).search)
  if (c.req.method === 'POST' && (c.req.header('content-type') ?? '').startsWith('application/x-www-form-urlencoded')) {
    const length = Number(c.req.header('content-length') ?? 0)
    if (length > maxBytes) throw new SubsonicError(ErrorGeneric, 'The form is too large.')
    const body = await c.req.text()
    if (body.length > maxBytes) throw new SubsonicError(ErrorGeneric, 'The form is too large.')
    for (const [k, v] of new URLSearchParams(body)) params.append(k, v)
  }
  return new Params(params)
}

/**
 * The Subsonic API at /rest/<method> and /rest/<method>.view (docs/api.md, Subsonic API):
 * GET, HEAD or form POST; XML, or JSON with `f=json` (JSONP with `f=jsonp&callback=`).
 * Every refusal is a Subsonic error in a 200 answer; an unknown method is a 404 in the same envelope.
 */
export function restRoutes(ctx: AppContext) {
  const envelope: Envelope = { version: API_VERSION, type: 'tunefeed', serverVersion: embedded()?.version ?? pkg.version }

  const write = (params: Params | null, body: Answer | { failure: SubsonicFailure }, status: 200 | 404 = 200, headers: Record<string, string> = {}) => {
    const f = params?.get('f')
    const callback = params?.get('callback')
    let res: Response
    if (f === 'json') res = new Response(toJson(envelope, body), { status, headers: { 'Content-Type': 'application/json; charset=utf-8' } })
    else if (f === 'jsonp' && callback && /^[\w$.]{1,100}$/.test(callback))
      res = new Response(`${callback}(${toJson(envelope, body)});`, { status, headers: { 'Content-Type': 'application/javascript; charset=utf-8' } })
    else res = new Response(toXml(envelope, body), { status, headers: { 'Content-Type': 'application/xml; charset=utf-8' } })
    for (const [k, v] of Object.entries(headers)) res.headers.set(k, v)
    return res
  }

  const handle = async (c: Context) => {
    const raw = c.req.param('method') ?? ''
    const asked = raw.endsWith('.view') ? raw.slice(0, -5) : raw
    const name = METHODS[asked] ? asked : BY_LOWER.get(asked.toLowerCase())
    let params: Params | null = null
    let res: Response
    try {
      params = await readParams(c, ctx.env.MAX_JSON_BYTES)
      if (!name) {
        res = write(params, { failure: { code: 0, message: `Unknown method ${asked}.` } }, 404)
      } else {
        const user = PUBLIC.has(name) && !params.get('u') && !params.get('apiKey') ? null : await signIn(ctx, c, params)
        const result = await METHODS[name]!({ ctx, c, user: user ?? { id: '', email: '', admin: false }, params })
        res = result instanceof Response ? result : write(params, result)
      }
    } catch (err) {
      if (err instanceof SubsonicError) res = write(params, { failure: { code: err.code, message: err.message } }, 200, err.headers)
      else {
        log.error('subsonic method failed', { method: name ?? asked, ...errorFields(err) })
        res = write(params, { failure: { code: 0, message: 'The server failed to answer; try again later.' } })
      }
    }
    for (const [k, v] of REST_HEADERS) res.headers.set(k, v)
    return res
  }

  // a form POST over 64 KB, chunked or not, is refused before more of it is read, without sign-in
  const tooLarge = (c: Context) => {
    const res = write(new Params(new URLSearchParams(new URL(c.req.url).search)), { failure: { code: 0, message: 'The form is too large.' } })
    for (const [k, v] of REST_HEADERS) res.headers.set(k, v)
    return res
  }

  return new Hono<AppEnv>()
    .use(smallBody(SMALL_BODY_BYTES, tooLarge))
    .options('/:method', () => {
      return new Response(null, {
        status: 204,
        headers: {
          'Access-Control-Allow-Origin': '*',
          'Access-Control-Allow-Methods': 'GET, HEAD, POST',
          'Access-Control-Allow-Headers': 'Content-Type, Range',
          'Access-Control-Max-Age': '86400',
        },
      })
    })
    .on(['GET', 'HEAD', 'POST'], '/:method', handle)
}

/** /api/auth/subsonic: the app password players use when they cannot send an API key (a session only; tokens get 403). */
export function appPasswordRoutes(ctx: AppContext) {
  return new Hono<AppEnv>()
    .use(requireSession)
    .get('/', async (c) => {
      const user = currentUser(c)
      return c.json({ username: user.email, hasPassword: await appPasswordStatus(ctx.db, user.id) }, 200)
    })
    .post('/', async (c) => {
      const user = currentUser(c)
      // the password itself is in this answer: no cache keeps it
      c.header('Cache-Control', 'no-store')
      return c.json({ username: user.email, password: await createAppPassword(ctx, user) }, 201)
    })
    .delete('/', async (c) => {
      await deleteAppPassword(ctx.db, currentUser(c))
      return c.body(null, 204)
    })
}
