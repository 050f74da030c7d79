import { existsSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { z } from 'zod'
import type { AppContext } from '../context.ts'
import type { JobDefinition, JobModule } from '../jobs/types.ts'
import { log } from '../lib/logger.ts'
import { notifyUsers } from '../notifications/jobs.ts'
import { pageUrl } from '../lib/origin.ts'
import { jobDir, workDir } from './files.ts'
import { removeJobFiles } from './stored.ts'
import { failureSentence } from '../tools/failure.ts'
import { publishMusicEvent } from './events.ts'
import { failureKind, runMusicJob } from './pipeline.ts'
import { deleteFailuresOfJob } from '../jobs/history.ts'
import { fail } from '../lib/errors.ts'
import { webdavUploadJob } from './webdav-job.ts'
import { deleteMusicJob, failMusicJob, getMusicJob, listExpiredMusicJobs, listUnfinishedMusicJobs, updateMusicJob } from './queries.ts'

export const musicRun: JobDefinition<{ jobId: string }> = {
  name: 'music.run',
  payload: z.object({ jobId: z.uuid() }),
  async run(ctx, { jobId }, job) {
    const before = await getMusicJob(ctx.db, jobId)
    await runMusicJob(ctx, jobId, job)
    const row = await getMusicJob(ctx.db, jobId)
    if (before && !before.completed && row?.completed) {
      await notifyUsers(ctx, [row.userId], 'onJobFinished', {
        event: 'job.finished',
        title: 'Music job finished',
        text: `${row.artist} - ${row.title} is ready to download.`,
        url: pageUrl(ctx, '/music/downloader'),
        items: [],
      })
    }
  },
  // transient tool failures (network, timeout) are retried, further apart each time; a bot check is not (src/tools/pace.ts)
  backoff: 'exponential',
  async onGiveUp(ctx, { jobId }, error) {
    const row = await failMusicJob(ctx.db, jobId, error.message, failureKind(error))
    if (!row) return
    await notifyUsers(ctx, [row.userId], 'onJobFailed', {
      event: 'job.failed',
      title: 'Music job failed',
      // the sentence for a person (never a path or a command line), as the job list shows it
      text: `${row.artist} - ${row.title}: ${failureSentence(failureKind(error), error.message)}`,
      url: pageUrl(ctx, '/music/downloader'),
      items: [],
    })
    await rm(workDir(jobDir(ctx.env.DATA_DIR, row.userId, row.id)), { recursive: true, force: true })
    publishMusicEvent(ctx, row.userId, { id: row.id, status: 'COMPLETED' })
  },
  owner: async (ctx, { jobId }) => (await getMusicJob(ctx.db, jobId))?.userId ?? null,
  async describe(ctx, { jobId }) {
    const row = await getMusicJob(ctx.db, jobId)
    return row ? `${row.artist} - ${row.title}` : null
  },
  // an admin's retry runs the job again from the start: it is in progress again for its owner
  async beforeRetry(ctx, { jobId }) {
    await updateMusicJob(ctx.db, jobId, { failed: null, error: null, errorKind: null, progress: 0, startedAt: null })
    const row = await getMusicJob(ctx.db, jobId)
    if (row) publishMusicEvent(ctx, row.userId, { id: row.id, status: 'STARTED' })
  },
}

/**
 * The owner's Retry on a failed job's row (POST /api/music/jobs/{id}/retry): the same job runs
 * again from the start (same id, link or upload and tags), as an admin's retry does.
 */
export async function retryMusicJob(ctx: AppContext, job: { id: string; userId: string; failed: unknown }) {
  if (!job.failed) fail(409, 'Job has not failed.')
  await musicRun.beforeRetry!(ctx, { jobId: job.id })
  await deleteFailuresOfJob(ctx.db, job.id)
  await ctx.jobs.enqueue(musicRun, { jobId: job.id }, { jobId: job.id, fair: { lane: 'hand', owner: job.userId } })
}

/** Removes finished jobs (and their folders) older than JOB_RETENTION_DAYS. */
export async function removeExpiredMusicJobs(ctx: AppContext, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - ctx.env.JOB_RETENTION_DAYS * 24 * 60 * 60 * 1000)
  let removed = 0
  for (;;) {
    const batch = await listExpiredMusicJobs(ctx.db, before)
    for (const job of batch) {
      await deleteMusicJob(ctx.db, job.id)
      await removeJobFiles(ctx, job)
    }
    removed += batch.length
    if (batch.length === 0) break
  }
  if (removed) log.info('expired music jobs removed', { removed })
  return removed
}

export const musicCleanup: JobDefinition<Record<string, never>> = {
  name: 'music.cleanup',
  payload: z.object({}).strict() as z.ZodType<Record<string, never>>,
  attempts: 1,
  run: async (ctx) => void (await removeExpiredMusicJobs(ctx)),
}

/**
 * After a restart: a job the database says is unfinished but the queue does
 * not hold (queue file lost, or enqueue failed after the insert) goes back in.
 * Jobs that crashed on their last attempt were already failed by the
 * dead-letter sweep, which runs before this.
 */
async function requeueLostMusicJobs(ctx: AppContext) {
  for (const job of await listUnfinishedMusicJobs(ctx.db)) {
    // a job whose folder is not here was created by another app process (own DATA_DIR and queue)
    if (!existsSync(jobDir(ctx.env.DATA_DIR, job.userId, job.id))) continue
    if ((await ctx.jobs.state(job.id)) === 'unknown') {
      log.warn('music job lost by the queue, enqueued again', { id: job.id })
      await ctx.jobs.enqueue(musicRun, { jobId: job.id }, { jobId: job.id, fair: { lane: 'hand', owner: job.userId } })
    }
  }
}

export const musicJobs: JobModule = {
  definitions: [musicRun, musicCleanup, webdavUploadJob],
  schedules: [{ id: 'music.cleanup.daily', job: musicCleanup, payload: {}, pattern: '17 3 * * *' }],
  onStart: requeueLostMusicJobs,
}
