import { and, eq, isNull } from 'drizzle-orm'
import type { AppContext } from '../context.ts'
import { errorFields, log } from '../lib/logger.ts'
import { failMusicJob } from '../music/queries.ts'
import { musicJobs } from '../music/tables.ts'
import { CLOSE_SESSION_ENDED } from '../ws/hub.ts'

/** What a disabled user's waiting and running music jobs record (the list shows the `internal` sentence). */
export const STOPPED_BY_DISABLE = 'stopped: the account was disabled'

/**
 * A user was just disabled (PATCH /api/admin/users/{id}): their open listen
 * sockets close at once (4001 `Session ended`; on other processes at the next
 * ping, which finds the sessions gone), and their music jobs waiting or running
 * are marked failed, then taken out of the queue or aborted (as is their own
 * subscription sync). The row is failed
 * first, so a run that is not stopped here (another process) cannot complete it,
 * and a waiting one is skipped by whichever process picks it up.
 */
export async function stopDisabledUser(ctx: AppContext, userId: string): Promise<void> {
  ctx.hub.closeSessions({ userId }, CLOSE_SESSION_ENDED, 'Session ended')
  const jobs = await ctx.db
    .select({ id: musicJobs.id })
    .from(musicJobs)
    .where(and(eq(musicJobs.userId, userId), isNull(musicJobs.completed), isNull(musicJobs.failed)))
  for (const job of jobs) {
    await failMusicJob(ctx.db, job.id, STOPPED_BY_DISABLE, 'internal')
    try {
      await ctx.jobs.cancel(job.id)
    } catch (err) {
      log.warn('job of a disabled user not cancelled', { id: job.id, ...errorFields(err) })
    }
  }
  // their own subscription sync (src/youtube/routes.ts queues it under this id)
  await ctx.jobs.cancel(`youtube.syncSubscriptions.${userId}`).catch((err) => log.warn('sync of a disabled user not cancelled', { userId, ...errorFields(err) }))
  if (jobs.length) log.info('jobs of a disabled user stopped', { userId, jobs: jobs.length })
}
