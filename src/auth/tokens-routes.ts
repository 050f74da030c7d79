import { Hono } from 'hono'
import type { AppContext, AppEnv } from '../context.ts'
import { fail } from '../lib/errors.ts'
import { valid } from '../lib/validate.ts'
import { createApiToken, deleteApiToken, listApiTokens, requireSession } from './bearer.ts'
import { createApiTokenBody, type ApiToken, type CreatedApiToken } from './schema.ts'
import { currentUser } from './session.ts'

/** Largest number of tokens one user keeps (each is a standing credential). */
export const MAX_API_TOKENS = 50
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** /api/auth/tokens: a signed-in session manages its user's API tokens (a token cannot). */
export function tokenRoutes(ctx: AppContext) {
  const { db } = ctx
  return new Hono<AppEnv>()
    .use(requireSession)
    .get('/', async (c) => {
      const rows = await listApiTokens(db, currentUser(c).id)
      const tokens: ApiToken[] = rows.map((r) => ({
        ...r,
        createdAt: r.createdAt.toISOString(),
        lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
        expiresAt: r.expiresAt?.toISOString() ?? null,
      }))
      return c.json({ tokens }, 200)
    })
    .post('/', valid('json', createApiTokenBody), async (c) => {
      const userId = currentUser(c).id
      if ((await listApiTokens(db, userId)).length >= MAX_API_TOKENS) fail(409, `At most ${MAX_API_TOKENS} tokens; revoke one first.`)
      const { name, expiresAt } = c.req.valid('json')
      const created: CreatedApiToken = await createApiToken(db, userId, name, expiresAt ? new Date(expiresAt) : null)
      // the token itself is in this answer: no cache keeps it
      c.header('Cache-Control', 'no-store')
      return c.json(created, 201)
    })
    .delete('/:id', async (c) => {
      const id = c.req.param('id')
      if (!UUID.test(id) || !(await deleteApiToken(db, currentUser(c).id, id))) fail(404, 'Token not found.')
      ctx.hub.closeSessions({ apiTokenId: id })
      return c.body(null, 204)
    })
}
