import type { AppContext } from '../context.ts'
import { fail } from '../lib/errors.ts'
import { errorFields, log } from '../lib/logger.ts'
import { checkUrl, UrlRefused } from '../lib/url-guard.ts'
import { musicRun } from './jobs.ts'
import { failMusicJob, insertMusicJob, type NewMusicJob } from './queries.ts'

/** Inserts the job and enqueues `music.run`; 503 (the job recorded as failed) when the queue refuses it. */
export async function insertAndEnqueue(ctx: AppContext, job: NewMusicJob): Promise<void> {
  await insertMusicJob(ctx.db, job)
  try {
    await ctx.jobs.enqueue(musicRun, { jobId: job.id! }, { jobId: job.id! })
  } catch (err) {
    log.error('music job could not be enqueued', { id: job.id, ...errorFields(err) })
    await failMusicJob(ctx.db, job.id!, 'could not be queued', 'internal')
    fail(503, 'Job Failed to Start')
  }
}

/** 422 naming the field when the URL guard refuses `url` (scheme, loopback, private address...). */
export async function refuseUnsafeUrl(field: string, url: string, ctx: AppContext) {
  try {
    await checkUrl(url, ctx.allow)
  } catch (err) {
    if (err instanceof UrlRefused) fail(422, `${field}: ${err.message}`)
    throw err
  }
}
