import { Hono, type Context } from 'hono'
import { deleteCookie, getCookie, setCookie } from 'hono/cookie'
import { z } from 'zod'
import type { AppContext, AppEnv } from '../context.ts'
import { clientIp } from '../lib/client-ip.ts'
import { fail } from '../lib/errors.ts'
import { log } from '../lib/logger.ts'
import { isOwnOrigin, publicOrigin, requestProtocol } from '../lib/origin.ts'
import { hit } from '../lib/rate-limit.ts'
import { valid } from '../lib/validate.ts'
import { linkIdentity, listIdentities, signInWithIdentity, unlinkIdentity } from './identities.ts'
import { OIDC_PROVIDER_ID, OidcClient, OidcError, type OidcAttempt } from './oidc.ts'
import type { LinkedIdentity, Provider } from './schema.ts'
import { createSession, currentUser, setSessionCookie } from './session.ts'

const ATTEMPT_COOKIE = 'tunefeed_oidc'
const ATTEMPT_PATH = '/api/auth/oidc/'
const ATTEMPT_TTL_SECONDS = 10 * 60

/** A path on this site (`/music?x=1`), never `//host`, `/\host` or an absolute URL. */
export function isSameSitePath(next: string): boolean {
  if (!next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\') || /[\u0000-\u001f]/.test(next)) return false
  const base = 'http://same.invalid'
  return URL.parse(next, base)?.origin === base
}

const startQuery = z.object({
  next: z
    .string()
    .max(2000)
    .refine(isSameSitePath, 'must be a path on this site')
    .optional(),
  /** `1`: link the identity to the signed-in account instead of signing in (the Account page's "Link"). */
  link: z.enum(['1', 'true'], { error: 'must be 1' }).optional(),
})
/**
 * A navigation another site started (docs/decisions/228-oidc-link-start-same-origin.md):
 * Sec-Fetch-Site `cross-site` or `same-site`; without it (older browsers), an Origin or Referer
 * naming another host. Neither header (typed in, or this site's pages, which send no Referer):
 * allowed.
 */
function startedElsewhere(c: Context, trustProxy: boolean): boolean {
  const site = c.req.header('sec-fetch-site')
  if (site) return site === 'cross-site' || site === 'same-site'
  const origin = c.req.header('origin')
  const from = origin && origin !== 'null' ? origin : c.req.header('referer')
  if (origin === 'null') return true
  return !!from && !isOwnOrigin(from, c.req, trustProxy)
}

const callbackQuery = z.object({
  code: z.string().max(4000).optional(),
  state: z.string().max(200).optional(),
  error: z.string().max(200).optional(),
})

/**
 * Where the login page explains a failed provider sign-in (web/src: the login page reads `oidc_error`):
 * `exists` is an account with the provider's e-mail not linked to the identity, `disabled` a disabled account.
 * A failed link goes to the Account page with the same parameter (`taken`: the identity is another account's).
 */
export type OidcFailure = 'state' | 'denied' | 'unverified' | 'unavailable' | 'failed' | 'exists' | 'disabled' | 'taken'

interface Attempt extends OidcAttempt {
  next: string
  /** The signed-in user the identity is to be linked to (a link attempt), else absent. */
  link?: string
}

/**
 * GET /api/auth/providers, /api/auth/oidc/{id}/start and …/callback. Start and
 * callback are browser navigations: failures after the start answer a redirect
 * to the login page with a fixed reason code, not JSON.
 */
export function oidcRoutes(ctx: AppContext) {
  const { db, env, cipher } = ctx
  const client = OidcClient.fromEnv(env)
  const redirectUri = (c: Context) => `${publicOrigin(c.req, env)}/api/auth/oidc/${OIDC_PROVIDER_ID}/callback`
  const toLogin = (c: Context, reason: OidcFailure) => c.redirect(`/login?oidc_error=${reason}`, 302)
  const toAccount = (c: Context, outcome: OidcFailure | 'linked') =>
    c.redirect(outcome === 'linked' ? '/account?oidc_linked=1' : `/account?oidc_error=${outcome}`, 302)
  const provider = (c: Context) => {
    if (!client || c.req.param('id') !== OIDC_PROVIDER_ID) fail(404, 'Provider not found.')
    return client
  }

  return new Hono<AppEnv>()
    .get('/providers', (c) => {
      const providers: Provider[] = client ? [{ id: OIDC_PROVIDER_ID, name: client.name }] : []
      // mail: where a sign-up's verification link goes (without SMTP_URL: the log and DATA_DIR/mail)
      return c.json({ providers, passwordSignup: env.SIGNUP !== 'oidc-only', mail: env.SMTP_URL ? ('smtp' as const) : ('file' as const) }, 200)
    })
    .get('/identities', async (c) => {
      const me = currentUser(c)
      const rows = await listIdentities(db, me.id)
      const identities: LinkedIdentity[] = rows.map((r) => ({
        provider: r.provider,
        name: client && r.provider === OIDC_PROVIDER_ID ? client.name : r.provider,
        createdAt: r.createdAt.toISOString(),
      }))
      return c.json({ identities }, 200)
    })
    .delete('/identities/:provider', async (c) => {
      const me = currentUser(c)
      // unlinking changes the ways into the account: the account's own session, never an API token
      if (c.get('apiTokenId')) fail(403, 'API tokens cannot be used here; sign in instead.')
      const provider = c.req.param('provider')
      const name = client && provider === OIDC_PROVIDER_ID ? client.name : 'this provider'
      const outcome = await unlinkIdentity(db, provider, me.id)
      if (outcome === 'missing') fail(404, 'Identity not found.')
      if (outcome === 'last')
        fail(409, `${name} is the only way into this account: set a password first (Reset Password on the login page sends a code), then unlink it.`)
      return c.body(null, 204)
    })
    .get('/oidc/:id/start', valid('query', startQuery), async (c) => {
      const oidc = provider(c)
      const { next, link } = c.req.valid('query')
      // linking needs the account's own session (an API token cannot add a way into the account),
      // started from this site: the session cookie is SameSite=Lax, so another site's link would
      // carry it and tie an identity of its choosing to the account
      if (link) {
        if (!c.get('user')) fail(401, 'Unauthorized')
        if (c.get('apiTokenId')) fail(403, 'API tokens cannot be used here; sign in instead.')
        if (startedElsewhere(c, env.TRUST_PROXY)) fail(403, 'Linking must be started from the Account page of this site.')
      }
      await hit(db, `oidc:ip:${clientIp(c, env.TRUST_PROXY)}`, env.RATE_LIMIT_MAX * 5, env.RATE_LIMIT_WINDOW_SECONDS)
      let started: Awaited<ReturnType<OidcClient['start']>>
      try {
        started = await oidc.start(redirectUri(c))
      } catch (err) {
        log.warn('oidc start failed', { error: err instanceof Error ? err.message : String(err) })
        const reason = err instanceof OidcError ? err.kind : 'failed'
        return link ? toAccount(c, reason) : toLogin(c, reason)
      }
      const attempt: Attempt = { ...started.attempt, next: next ?? (link ? '/account' : '/'), ...(link ? { link: c.get('user')!.id } : {}) }
      const sealed = await cipher.encrypt(JSON.stringify({ ...attempt, until: Date.now() + ATTEMPT_TTL_SECONDS * 1000 }))
      setCookie(c, ATTEMPT_COOKIE, sealed, {
        httpOnly: true,
        // Lax: the provider sends the browser back with a top-level GET, which carries it
        sameSite: 'Lax',
        secure: requestProtocol(c.req, env.TRUST_PROXY) === 'https',
        path: ATTEMPT_PATH,
        maxAge: ATTEMPT_TTL_SECONDS,
      })
      return c.redirect(started.url.toString(), 302)
    })
    .get('/oidc/:id/callback', valid('query', callbackQuery), async (c) => {
      const oidc = provider(c)
      await hit(db, `oidc:ip:${clientIp(c, env.TRUST_PROXY)}`, env.RATE_LIMIT_MAX * 5, env.RATE_LIMIT_WINDOW_SECONDS)
      const { code, state, error } = c.req.valid('query')
      // one attempt, one callback: the cookie goes whatever happens next
      const attempt = await openAttempt(getCookie(c, ATTEMPT_COOKIE))
      deleteCookie(c, ATTEMPT_COOKIE, { path: ATTEMPT_PATH })
      if (!attempt || !state || state !== attempt.state) return toLogin(c, 'state')
      const refuse = (reason: OidcFailure) => (attempt.link ? toAccount(c, reason) : toLogin(c, reason))
      if (error || !code) return refuse('denied')
      let identity
      try {
        identity = await oidc.finish(redirectUri(c), code, attempt)
      } catch (err) {
        log.warn('oidc sign-in failed', { error: err instanceof Error ? err.message : String(err) })
        return refuse(err instanceof OidcError ? err.kind : 'failed')
      }
      if (attempt.link) {
        // still the same person signed in here (the session cookie comes along on this top-level GET)
        if (c.get('user')?.id !== attempt.link || !c.get('sessionId')) return toLogin(c, 'state')
        const linked = await linkIdentity(db, OIDC_PROVIDER_ID, identity.subject, attempt.link)
        if (linked === 'taken') log.info('oidc link refused: the identity is linked to another account', { userId: attempt.link })
        return toAccount(c, linked)
      }
      if (!identity.email || !identity.emailVerified) return toLogin(c, 'unverified')
      const found = await signInWithIdentity(db, OIDC_PROVIDER_ID, identity.subject, identity.email)
      if (found.kind !== 'user') return toLogin(c, found.kind)
      const { token, expiresAt } = await createSession(db, found.user.id)
      setSessionCookie(c, token, expiresAt, env.TRUST_PROXY)
      return c.redirect(isSameSitePath(attempt.next) ? attempt.next : '/', 302)
    })

  async function openAttempt(sealed: string | undefined): Promise<Attempt | null> {
    if (!sealed || sealed.length > 4000) return null
    try {
      const value = JSON.parse(await cipher.decrypt(sealed)) as Attempt & { until: number }
      return value.until > Date.now() ? value : null
    } catch {
      return null
    }
  }
}
