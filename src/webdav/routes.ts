import { Hono } from 'hono'
import type { AppContext, AppEnv } from '../context.ts'
import { requireSession } from '../auth/bearer.ts'
import { currentUser } from '../auth/session.ts'
import { fail } from '../lib/errors.ts'
import { valid } from '../lib/validate.ts'
import { webdavProblem } from './check.ts'
import { deleteWebdav, getWebdav, saveWebdav, WebdavUnreadable } from './queries.ts'
import { webdavAccount } from './schema.ts'

export function webdavRoutes(ctx: AppContext) {
  const { db, cipher } = ctx
  return new Hono<AppEnv>()
    // credentials: a signed-in session only, never an API token
    .use(requireSession)
    .get('/', async (c) => {
      const account = await getWebdav(db, cipher, currentUser(c).id).catch((err: unknown) => {
        if (err instanceof WebdavUnreadable) fail(409, err.message)
        throw err
      })
      if (!account) fail(404, 'WebDAV not found.')
      return c.json(account, 200)
    })
    .post('/', valid('json', webdavAccount), async (c) => {
      const account = c.req.valid('json')
      // the same detail for every failure; why, in a header the form turns into words
      const problem = await webdavProblem(account, ctx.allow)
      if (problem) fail(400, 'Error connecting to webdav server.', { 'x-error-kind': problem })
      await saveWebdav(db, cipher, currentUser(c).id, account)
      return c.json(account, 200)
    })
    .delete('/', async (c) => {
      await deleteWebdav(db, currentUser(c).id)
      return c.body(null, 204)
    })
}
