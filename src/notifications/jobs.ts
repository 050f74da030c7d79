import { z } from 'zod'
import type { AppContext } from '../context.ts'
import type { JobDefinition, JobModule } from '../jobs/types.ts'
import { errorFields, log } from '../lib/logger.ts'
import { deliver, getSettings, logNotifyError, sealPlainUrls, wanting } from './send.ts'
import type { Notification } from './schema.ts'

const notificationSchema: z.ZodType<Notification> = z.object({
  event: z.enum(['job.finished', 'job.failed', 'videos.new', 'test', 'tools.canary', 'admin.alert']),
  title: z.string().max(500),
  text: z.string().max(5000),
  url: z.string().max(2000).nullable(),
  items: z.array(z.object({ title: z.string().max(500), url: z.string().max(2000) })).max(100),
})

/**
 * One message to one user's endpoints, sent by the queue: a failing endpoint
 * is retried (4 attempts in all, each delay twice the one before) and then given up,
 * recorded with the other failed jobs. The settings are read when it runs,
 * so a URL removed meanwhile is not called.
 */
export const sendNotificationJob: JobDefinition<{ userId: string; notification: Notification }> = {
  name: 'notifications.send',
  payload: z.object({ userId: z.uuid(), notification: notificationSchema }),
  attempts: 4,
  backoff: 'exponential',
  timeoutMs: 60_000,
  async run(ctx, { userId, notification }) {
    await deliver(ctx, await getSettings(ctx.db, ctx.cipher, userId), notification)
  },
  owner: async (_ctx, p) => p.userId,
}

type Flag = 'onJobFinished' | 'onJobFailed' | 'onNewVideos'

/**
 * Queues `notification` for those of `userIds` who want `flag` and set an
 * endpoint. Never throws: what it reports on goes on whatever happens here.
 */
export async function notifyUsers(ctx: Pick<AppContext, 'db' | 'jobs'>, userIds: string[], flag: Flag, notification: Notification) {
  try {
    if (!ctx.jobs) return
    for (const userId of await wanting(ctx.db, userIds, flag)) {
      await ctx.jobs.enqueue(sendNotificationJob, { userId, notification })
    }
  } catch (err) {
    logNotifyError(err, { event: notification.event })
  }
}

/** URLs stored in plain text by an older version are sealed once the app starts (decision 161). */
async function sealStoredUrls(ctx: AppContext) {
  try {
    const sealed = await sealPlainUrls(ctx.db, ctx.cipher)
    if (sealed) log.info('notification URLs encrypted', { rows: sealed })
  } catch (err) {
    log.warn('notification URLs not encrypted yet', errorFields(err))
  }
}

export const notificationJobs: JobModule = { definitions: [sendNotificationJob], beforeStart: sealStoredUrls }
