import { Hono } from 'hono'
import type { AppContext, AppEnv } from '../context.ts'
import { fail } from '../lib/errors.ts'
import { hit } from '../lib/rate-limit.ts'
import { valid } from '../lib/validate.ts'
import { deleteAccount } from './account.ts'
import { requireSession } from './bearer.ts'
import { changePassword, findUserByEmail, verifyPassword } from './queries.ts'
import { changePasswordBody, deleteAccountBody } from './schema.ts'
import { clearSessionCookie, currentUser } from './session.ts'

/** PUT /api/auth/password and DELETE /api/auth/account: a signed-in session that knows the password. */
export function accountRoutes(ctx: AppContext) {
  const { db, env } = ctx

  /** The signed-in user's row once `password` is theirs; 400 otherwise. Rate-limited per user. */
  const confirm = async (userId: string, email: string, password: string) => {
    await hit(db, `password:user:${userId}`, env.RATE_LIMIT_MAX, env.RATE_LIMIT_WINDOW_SECONDS)
    const user = await findUserByEmail(db, email)
    if (!user || user.id !== userId || !(await verifyPassword(password, user.passwordHash))) fail(400, 'Incorrect password.')
    return user
  }

  // guards per route: this router is mounted beside the public auth routes
  return new Hono<AppEnv>()
    .put('/password', requireSession, valid('json', changePasswordBody), async (c) => {
      const { currentPassword, password, keepTokens } = c.req.valid('json')
      const me = currentUser(c)
      await confirm(me.id, me.email, currentPassword)
      const sessionId = c.get('sessionId')!
      // API tokens go too, unless asked to keep them (docs/decisions/157-tokens-after-recovery.md)
      const revoked = await changePassword(db, me.id, password, { keepSessionId: sessionId, keepTokens })
      ctx.hub.closeSessions({ userId: me.id, exceptSessionId: sessionId })
      for (const apiTokenId of revoked) ctx.hub.closeSessions({ apiTokenId })
      return c.body(null, 204)
    })
    .delete('/account', requireSession, valid('json', deleteAccountBody), async (c) => {
      const me = currentUser(c)
      const user = await confirm(me.id, me.email, c.req.valid('json').password)
      await deleteAccount(ctx, user)
      clearSessionCookie(c)
      return c.body(null, 204)
    })
}
