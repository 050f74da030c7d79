import type { AppContext, SessionUser } from '../context.ts'
import { fail } from '../lib/errors.ts'
import { errorFields, log } from '../lib/logger.ts'
import { checkUrl, UrlRefused } from '../lib/url-guard.ts'
import { opensPrivateList, PRIVATE_LIST_REFUSAL } from '../tools/private-lists.ts'
import { musicRun } from './jobs.ts'
import { failMusicJob, insertMusicJob, type NewMusicJob } from './queries.ts'

/** Inserts the job and enqueues `music.run`; 503 (the job recorded as failed) when the queue refuses it. */
export async function insertAndEnqueue(ctx: AppContext, job: NewMusicJob): Promise<void> {
  await insertMusicJob(ctx.db, job)
  try {
    await ctx.jobs.enqueue(musicRun, { jobId: job.id! }, { jobId: job.id!, fair: { lane: 'hand', owner: job.userId } })
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

/**
 * 403 naming the field when `url` opens a private list or feed of the account
 * whose cookies yt-dlp gets (src/tools/private-lists.ts), for anyone but an admin.
 */
export function refusePrivateList(field: string, url: string, user: Pick<SessionUser, 'admin'>) {
  if (!user.admin && opensPrivateList(url)) fail(403, `${field}: ${PRIVATE_LIST_REFUSAL}`)
}
