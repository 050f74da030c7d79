import { eq } from 'drizzle-orm'
import { z } from 'zod'
import type { AppContext } from '../context.ts'
import { PermanentJobError, type JobDefinition } from '../jobs/types.ts'
import { errorFields, log } from '../lib/logger.ts'
import { guardedFetch } from '../lib/guarded-fetch.ts'
import { UrlRefused, type AllowList } from '../lib/url-guard.ts'
import { getWebdav } from '../webdav/queries.ts'
import type { WebdavAccount } from '../webdav/schema.ts'
import { webdavAccounts } from '../webdav/tables.ts'
import { deleteFromWebdav, uploadToWebdav } from '../webdav/upload.ts'
import { inside, jobDir } from './files.ts'
import { dropLocalJob, fetchJobFiles } from './stored.ts'
import { publishMusicEvent } from './events.ts'
import { getMusicJob, updateMusicJob } from './queries.ts'
import type { MusicJobRow } from './tables.ts'

/**
 * `music.webdav`: the finished files of a job put on its owner's WebDAV
 * account, on their own (docs/decisions/168-webdav-upload-job.md). The track
 * is ready (completed, downloadable) when the conversion ends; a WebDAV
 * server that hangs or is down only delays this job. The server must answer
 * a PROPFIND within 15 s, then each upload has its own time limit
 * (WEBDAV_TIMEOUT_SECONDS); a failed attempt is retried (3 in all,
 * each delay twice the one before); the row's `webdav` stays null ("not yet")
 * until the upload is done (`uploaded`) or given up (`failed`, with the reason
 * in `webdavError`).
 *
 * `remove`: names to delete there once the upload is done (a tag edit renamed them).
 */
export const webdavUploadJob: JobDefinition<{ jobId: string; remove?: string[] }> = {
  name: 'music.webdav',
  payload: z.object({ jobId: z.uuid(), remove: z.array(z.string().max(1000)).max(1000).optional() }),
  attempts: 3,
  backoff: 'exponential',
  async run(ctx, { jobId, remove = [] }, job) {
    const row = await getMusicJob(ctx.db, jobId)
    if (!row?.completed || !row.outputFile) return
    // an unreadable stored password (changed secret) is a failure no retry fixes
    const account = await getWebdav(ctx.db, ctx.cipher, row.userId).catch((err: unknown) => err as Error)
    if (!account) return
    if (account instanceof Error) return void (await recordWebdav(ctx, row, 'failed', account.message))
    const signal = () => AbortSignal.any([job.signal, AbortSignal.timeout(ctx.env.WEBDAV_TIMEOUT_SECONDS * 1000)])
    const dir = jobDir(ctx.env.DATA_DIR, row.userId, row.id)
    try {
      // a server that hangs is found in seconds, before a file is sent (a slow upload keeps its full limit)
      await probe(account, ctx.allow, AbortSignal.any([job.signal, AbortSignal.timeout(probeSeconds(ctx) * 1000)]))
      await fetchJobFiles(ctx, row, finishedFiles(row))
      for (const file of finishedFiles(row)) await uploadToWebdav(account, ctx.allow, inside(dir, file), file.slice('output/'.length), signal())
    } catch (err) {
      job.signal.throwIfAborted()
      const message = webdavErrorText(err, ctx)
      log.warn('webdav upload failed', { id: row.id, attempt: job.attempt, attempts: job.attempts, error: message })
      // an address the guard refuses stays refused: no retry
      throw err instanceof UrlRefused ? new PermanentJobError(message) : new Error(message)
    } finally {
      await dropLocalJob(ctx, row)
    }
    for (const name of remove) {
      try {
        await deleteFromWebdav(account, ctx.allow, name, signal())
      } catch (err) {
        log.warn('old webdav copy not removed', { id: row.id, ...errorFields(err) })
      }
    }
    await recordWebdav(ctx, row, 'uploaded', null)
  },
  async onGiveUp(ctx, { jobId }, error) {
    const row = await getMusicJob(ctx.db, jobId)
    if (row?.completed) await recordWebdav(ctx, row, 'failed', error.message)
  },
  owner: async (ctx, { jobId }) => (await getMusicJob(ctx.db, jobId))?.userId ?? null,
}

/** The files a job puts on WebDAV: each track of a split job, else its one MP3 (paths under the job folder). */
function finishedFiles(row: MusicJobRow): string[] {
  return row.tracks.length ? row.tracks.map((t) => t.file) : [row.outputFile!]
}

/** How long the server has to answer a PROPFIND before the upload: 15 s, or less when WEBDAV_TIMEOUT_SECONDS is. */
const probeSeconds = (ctx: AppContext) => Math.min(15, ctx.env.WEBDAV_TIMEOUT_SECONDS)

class NoAnswer extends Error {}

/**
 * PROPFIND depth 0 on the account's URL: throws NoAnswer when the server does not answer in time;
 * any answer passes (a refusal is the upload's to report, in its own words).
 */
async function probe(account: WebdavAccount, allow: AllowList, signal: AbortSignal) {
  try {
    const res = await guardedFetch(account.url, {
      method: 'PROPFIND',
      headers: { Depth: '0', Authorization: `Basic ${Buffer.from(`${account.username}:${account.password}`).toString('base64')}` },
      signal,
      allow,
      maxRedirects: 0,
    })
    await res.body?.cancel()
  } catch (err) {
    if (err instanceof Error && err.name === 'TimeoutError') throw new NoAnswer()
    throw err
  }
}

function webdavErrorText(err: unknown, ctx: AppContext): string {
  if (err instanceof NoAnswer) return `the WebDAV server did not answer within ${probeSeconds(ctx)} s`
  if (err instanceof Error && err.name === 'TimeoutError') return `the upload to the WebDAV server took longer than ${ctx.env.WEBDAV_TIMEOUT_SECONDS} s`
  return err instanceof Error ? err.message : String(err)
}

async function recordWebdav(ctx: AppContext, row: MusicJobRow, webdav: 'uploaded' | 'failed', webdavError: string | null) {
  await updateMusicJob(ctx.db, row.id, { webdav, webdavError })
  // the row changed: the owner's open lists read it again
  publishMusicEvent(ctx, row.userId, { id: row.id, status: 'COMPLETED' })
}

/** Whether the user has a WebDAV account (then a finished job's files go there). */
export async function hasWebdav(ctx: AppContext, userId: string): Promise<boolean> {
  const [account] = await ctx.db.select({ userId: webdavAccounts.userId }).from(webdavAccounts).where(eq(webdavAccounts.userId, userId))
  return !!account
}

/** Queues the WebDAV upload of a finished job (written already) when its owner has an account; true when queued. */
export async function queueWebdavUpload(ctx: AppContext, row: Pick<MusicJobRow, 'id' | 'userId'>, remove: string[] = []): Promise<boolean> {
  if (!(await hasWebdav(ctx, row.userId))) return false
  await ctx.jobs.enqueue(webdavUploadJob, { jobId: row.id, ...(remove.length ? { remove } : {}) })
  return true
}
