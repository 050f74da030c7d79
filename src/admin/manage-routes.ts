import { Hono } from 'hono'
import { z } from 'zod'
import type { AppContext, AppEnv } from '../context.ts'
import { requireSession } from '../auth/bearer.ts'
import { currentUser } from '../auth/session.ts'
import { fail } from '../lib/errors.ts'
import { valid } from '../lib/validate.ts'
import { adminFailedJobs, deleteFailedJob, retryFailedJob, runSchedule } from './jobs.ts'
import { userListQuery, userPatch } from './schema.ts'
import { mailOutbox } from '../mail/jobs.ts'
import { adminMail, adminSchedules, adminStatus, queueCounts, testMail } from './status.ts'
import { stopDisabledUser } from './stop-user.ts'
import { deleteUser, getAdminUser, listUsers, updateUser } from './users.ts'

const uuid = z.uuid()
/** A path id that is not a uuid names nothing: the same 404 as an unknown one. */
function pathId(raw: string, what: string): string {
  if (!uuid.safeParse(raw).success) fail(404, `${what} not found.`)
  return raw
}

/**
 * The admin page's routes (docs/api.md, Admin): status, users, failed jobs,
 * schedules and mail. Mounted behind requireAdmin by routes.ts.
 */
export function manageRoutes(ctx: AppContext) {
  const { db } = ctx
  return new Hono<AppEnv>()
    .get('/status', async (c) => c.json(await adminStatus(ctx), 200))
    .get('/users', valid('query', userListQuery), async (c) => {
      const { page, per_page, q } = c.req.valid('query')
      return c.json(await listUsers(db, { page, perPage: per_page, q: q || undefined }), 200)
    })
    .get('/users/:id', async (c) => {
      const user = await getAdminUser(db, pathId(c.req.param('id'), 'User'))
      if (!user) fail(404, 'User not found.')
      return c.json(user, 200)
    })
    // granting admin, disabling and deleting need a session: an admin's API token cannot (docs/api.md)
    .patch('/users/:id', requireSession, valid('json', userPatch), async (c) => {
      const change = c.req.valid('json')
      const user = await updateUser(db, pathId(c.req.param('id'), 'User'), change)
      // sockets closed and jobs stopped at once, not at the next ping or the job's end
      if (change.disabled) await stopDisabledUser(ctx, user.id)
      return c.json(user, 200)
    })
    .delete('/users/:id', requireSession, async (c) => {
      await deleteUser(ctx, pathId(c.req.param('id'), 'User'))
      return c.body(null, 204)
    })
    .get('/jobs', async (c) => {
      const [counts, failed] = await Promise.all([queueCounts(ctx), adminFailedJobs(ctx)])
      return c.json({ counts, failed }, 200)
    })
    .post('/jobs/:id/retry', async (c) => {
      return c.json({ jobIds: [await retryFailedJob(ctx, pathId(c.req.param('id'), 'Job'))] }, 200)
    })
    .delete('/jobs/:id', async (c) => {
      await deleteFailedJob(ctx, pathId(c.req.param('id'), 'Job'))
      return c.body(null, 204)
    })
    .get('/schedules', async (c) => c.json({ schedules: await adminSchedules(ctx) }, 200))
    .post('/schedules/:name/run', async (c) => {
      return c.json({ jobIds: [await runSchedule(ctx, c.req.param('name'))] }, 200)
    })
    .get('/mail', async (c) => c.json({ ...adminMail(ctx), outbox: await mailOutbox(ctx) }, 200))
    .post('/mail/test', async (c) => {
      try {
        await ctx.mailer.send(testMail(currentUser(c).email))
      } catch (err) {
        fail(400, `Mail could not be sent: ${err instanceof Error ? err.message : String(err)}`)
      }
      return c.body(null, 204)
    })
}
