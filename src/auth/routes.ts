import { Hono } from 'hono'
import type { AppContext, AppEnv } from '../context.ts'
import { clientIp } from '../lib/client-ip.ts'
import { fail } from '../lib/errors.ts'
import { mailOrigin } from '../lib/origin.ts'
import { hit } from '../lib/rate-limit.ts'
import { valid } from '../lib/validate.ts'
import { assertNotLockedOut, clearLoginFailures, recordLoginFailure } from './lockout.ts'
import { queueMail } from '../mail/jobs.ts'
import {
  changePassword,
  alreadyVerifiedBy,
  consumeToken,
  createUser,
  findUserByEmail,
  markVerified,
  replacePendingUser,
  verifyPassword,
} from './queries.ts'
import { ALREADY_VERIFIED_KIND, createAccount, credentials, resetPassword, sendReset, sendVerify, verifyQuery, type SessionResponse } from './schema.ts'
import { accountRoutes } from './account-routes.ts'
import { tokenRoutes } from './tokens-routes.ts'
import { oidcRoutes } from './oidc-routes.ts'
import { clearSessionCookie, createSession, currentUser, endSession, requireUser, setSessionCookie } from './session.ts'

export function authRoutes(ctx: AppContext) {
  const { db, env } = ctx
  const limit = async (c: Parameters<typeof clientIp>[0], action: string, email?: string) => {
    const window = env.RATE_LIMIT_WINDOW_SECONDS
    // one person behind an IP gets a few times the per-account budget
    await hit(db, `${action}:ip:${clientIp(c, env.TRUST_PROXY)}`, env.RATE_LIMIT_MAX * 5, window)
    if (email) await hit(db, `${action}:email:${email}`, env.RATE_LIMIT_MAX, window)
  }

  /** A new link (the older ones stop working) mailed to a pending account: queued, issued and sent by the mail job; its host never comes from the request. */
  const sendVerification = (c: { env: unknown }, email: string) => queueMail(ctx, 'verify', email, mailOrigin(c.env, env))

  return new Hono<AppEnv>()
    .post('/create', valid('json', createAccount), async (c) => {
      const { email, password } = c.req.valid('json')
      await limit(c, 'create', email)
      if (env.SIGNUP === 'oidc-only') fail(403, 'Sign-up with a password is turned off.')
      const user = (await createUser(db, email, password)) ?? (await replacePendingUser(db, email, password))
      if (!user) fail(400, 'Account exists.')
      await sendVerification(c, email)
      return c.body(null, 204)
    })
    .post('/sendverify', valid('json', sendVerify), async (c) => {
      const { email } = c.req.valid('json')
      await limit(c, 'sendverify', email)
      // the same answer, and the same work, whether or not the address has a pending account
      await sendVerification(c, email)
      return c.body(null, 204)
    })
    .get('/verify', valid('query', verifyQuery), async (c) => {
      const { token } = c.req.valid('query')
      const userId = await consumeToken(db, token, 'verify')
      // a link opened again (a reload, a mail scanner): still 400, and a header the page turns into "already verified"
      if (!userId && (await alreadyVerifiedBy(db, token))) fail(400, 'Token is not valid.', { 'x-error-kind': ALREADY_VERIFIED_KIND })
      if (!userId) fail(400, 'Token is not valid.')
      await markVerified(db, userId)
      return c.body(null, 204)
    })
    .post('/login', valid('json', credentials), async (c) => {
      const { email, password } = c.req.valid('json')
      // every attempt counts per address; failures count per e-mail and address together
      await limit(c, 'login')
      const ip = clientIp(c, env.TRUST_PROXY)
      const policy = { max: env.RATE_LIMIT_MAX, windowSeconds: env.RATE_LIMIT_WINDOW_SECONDS }
      await assertNotLockedOut(db, email, ip, policy)
      const user = await findUserByEmail(db, email)
      const ok = await verifyPassword(password, user?.passwordHash)
      if (!user || !ok) {
        await recordLoginFailure(db, email, ip, policy)
        fail(401, 'Incorrect email or password.')
      }
      await clearLoginFailures(db, email, ip)
      if (!user.verifiedAt) fail(401, 'Account is unverified.')
      if (user.disabledAt) fail(403, 'Account is disabled.')
      const { token, expiresAt } = await createSession(db, user.id)
      setSessionCookie(c, token, expiresAt, env.TRUST_PROXY)
      return c.json({ id: user.id, email: user.email, admin: user.admin } satisfies SessionResponse, 200)
    })
    .delete('/logout', requireUser, async (c) => {
      await endSession(ctx, c.get('sessionId')!)
      clearSessionCookie(c)
      return c.json({}, 200)
    })
    .get('/session', (c) => {
      // currentUser answers 401 for anonymous requests: one middleware layer less on a hot route
      const { id, email, admin } = currentUser(c)
      return c.json({ id, email, admin } satisfies SessionResponse, 200)
    })
    .post('/sendreset', valid('json', sendReset), async (c) => {
      const { email } = c.req.valid('json')
      await limit(c, 'sendreset', email)
      // only queued: the same work for every address; the job issues the code for a verified account
      await queueMail(ctx, 'reset', email)
      return c.body(null, 204)
    })
    .post('/reset', valid('json', resetPassword), async (c) => {
      const { token, password } = c.req.valid('json')
      await limit(c, 'reset')
      const userId = await consumeToken(db, token, 'reset')
      if (!userId) fail(400, 'Token is not valid.')
      // every session and API token of the user ends with the reset: their open sockets too
      await changePassword(db, userId, password)
      ctx.hub.closeSessions({ userId })
      clearSessionCookie(c)
      return c.body(null, 204)
    })
    .route('/tokens', tokenRoutes(ctx))
    .route('/', accountRoutes(ctx))
    .route('/', oidcRoutes(ctx))
}
