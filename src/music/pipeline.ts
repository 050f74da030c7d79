import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import type { AppContext } from '../context.ts'
import { JobAbort, PermanentJobError, type JobRun } from '../jobs/types.ts'
import { errorFields, log } from '../lib/logger.ts'
import { checkUrl, UrlRefused } from '../lib/url-guard.ts'
import { getWebdav } from '../webdav/queries.ts'
import { uploadToWebdav } from '../webdav/upload.ts'
import { topics } from '../ws/hub.ts'
import { fetchArtwork, type Artwork } from './artwork.ts'
import { inside, jobDir, mp3Name, outputDir, sniffImage, workDir } from './files.ts'
import { completeMusicJob, getMusicJob, setMusicJobProgress, updateMusicJob } from './queries.ts'
import type { MusicJobEvent } from './schema.ts'
import type { MusicJobRow } from './tables.ts'
import { writeTags } from './tags.ts'
import { convertToMp3 } from '../tools/ffmpeg.ts'
import { ToolFailure, TRANSIENT_KINDS, type ErrorKind } from '../tools/failure.ts'
import { downloadAudio } from '../tools/ytdlp.ts'

export function publishMusicEvent(ctx: AppContext, userId: string, event: MusicJobEvent) {
  ctx.hub.publish(topics.musicJobs(userId), event)
}

const PROGRESS_EVERY_MS = 250

/** Progress 0-100, stored and pushed at most every 250 ms and only when the whole percent changes. */
function progressReporter(ctx: AppContext, row: MusicJobRow, run: JobRun) {
  let last = -1
  let lastAt = 0
  let pending: Promise<unknown> = Promise.resolve()
  return (percent: number, force = false) => {
    const value = Math.max(0, Math.min(100, Math.floor(percent)))
    const now = performance.now()
    if (value <= last || (!force && now - lastAt < PROGRESS_EVERY_MS)) return
    last = value
    lastAt = now
    publishMusicEvent(ctx, row.userId, { id: row.id, status: 'PROGRESS', progress: value })
    pending = pending
      .then(() => Promise.all([setMusicJobProgress(ctx.db, row.id, value), run.progress(value)]))
      .catch((err) => log.warn('progress update failed', { id: row.id, ...errorFields(err) }))
  }
}

/**
 * `music.run`: source (yt-dlp download or the upload) → MP3 (ffmpeg) → ID3
 * tags with artwork (node-id3) → output/<Artist - Title>.mp3 → WebDAV when
 * the user has an account. Idempotent: a finished or deleted job is left
 * alone; a retried one starts over from a clean work folder.
 */
export async function runMusicJob(ctx: AppContext, jobId: string, run: JobRun): Promise<void> {
  const row = await getMusicJob(ctx.db, jobId)
  if (!row || row.completed || row.failed) return
  const { signal } = run
  const dir = jobDir(ctx.env.DATA_DIR, row.userId, row.id)
  const work = workDir(dir)
  await rm(work, { recursive: true, force: true })
  await rm(outputDir(dir), { recursive: true, force: true })
  await mkdir(work, { recursive: true })
  const report = progressReporter(ctx, row, run)
  await updateMusicJob(ctx.db, row.id, { startedAt: new Date(), progress: 0, outputFile: null, webdav: null, webdavError: null })
  publishMusicEvent(ctx, row.userId, { id: row.id, status: 'STARTED' })

  try {
    // 1. the source
    let source: string
    const convertFrom = row.videoUrl ? 45 : 0
    if (row.videoUrl) {
      const url = row.videoUrl
      try {
        await checkUrl(url, ctx.allow)
      } catch (err) {
        if (err instanceof UrlRefused) throw new JobFailure('unsupported_url', `video URL refused: ${err.message}`)
        throw err
      }
      // after a bot check on this site, wait (paced, with backoff) rather than fail in a burst
      await ctx.tools.waitForSite(url, signal)
      try {
        source = await ctx.tools.withYtdlp((cfg) => downloadAudio(cfg, url, work, signal, (f) => report(f * convertFrom)), { url })
      } catch (err) {
        if (err instanceof ToolFailure && err.kind === 'bot_check') ctx.tools.noteBotCheck(url)
        throw err
      }
      ctx.tools.noteSuccess(url)
    } else {
      if (!row.uploadFile) throw new PermanentJobError('job has neither a video URL nor an upload')
      source = inside(dir, row.uploadFile)
    }

    // 2. artwork: stored at creation (data URI), or fetched now through the guard
    const artwork = await loadArtwork(ctx, row, dir, signal)

    // 3. convert and tag in the work folder, then move into output/
    const mp3 = inside(work, 'output.mp3')
    await convertToMp3(ctx.tools.ffmpeg, source, mp3, signal, (f) => report(convertFrom + f * (95 - convertFrom)))
    signal.throwIfAborted()
    await writeTags(mp3, row, artwork)
    const name = mp3Name(row.artist, row.title)
    await mkdir(outputDir(dir), { recursive: true })
    const final = inside(outputDir(dir), name)
    await rename(mp3, final)
    report(97, true)

    // 4. WebDAV: a failure is recorded, the MP3 stays downloadable
    let webdav: 'uploaded' | 'failed' | null = null
    let webdavError: string | null = null
    // an unreadable stored password (changed secret) is a WebDAV failure like any other
    const account = await getWebdav(ctx.db, ctx.cipher, row.userId).catch((err: unknown) => err as Error)
    if (account) {
      try {
        if (account instanceof Error) throw account
        await uploadToWebdav(account, ctx.allow, final, name, signal)
        webdav = 'uploaded'
      } catch (err) {
        signal.throwIfAborted()
        webdav = 'failed'
        webdavError = err instanceof Error ? err.message : String(err)
        log.warn('webdav upload failed', { id: row.id, error: webdavError })
      }
    }
    signal.throwIfAborted()
    await completeMusicJob(ctx.db, row.id, { outputFile: `output/${name}`, webdav, webdavError })
    publishMusicEvent(ctx, row.userId, { id: row.id, status: 'PROGRESS', progress: 100 })
    publishMusicEvent(ctx, row.userId, { id: row.id, status: 'COMPLETED' })
  } catch (err) {
    // an abort surfaces as the tool's failure or an AbortError: report the abort itself
    if (signal.aborted) throw signal.reason
    throw await asJobFailure(ctx, err, run)
  } finally {
    await rm(work, { recursive: true, force: true })
  }
}

/** A failure of a kind another attempt will not fix: the job fails at once with that kind. */
export class JobFailure extends PermanentJobError {
  constructor(
    readonly kind: ErrorKind,
    message: string,
  ) {
    super(message)
  }
}

/**
 * A tool failure of a transient kind is thrown as is (the queue retries it
 * with backoff, and gives up with its kind after the last attempt); any
 * other kind fails the job now. Signs of an outdated yt-dlp trigger an update
 * check: the job is retried only when a newer build was installed.
 */
async function asJobFailure(ctx: AppContext, err: unknown, run: JobRun): Promise<unknown> {
  if (!(err instanceof ToolFailure)) return err
  let transient = TRANSIENT_KINDS.has(err.kind) && run.attempt < run.attempts
  if (transient && err.kind === 'tool_outdated') transient = (await ctx.tools.managed.update()) === 'updated'
  return transient ? err : new JobFailure(err.kind, err.message)
}

/** The kind a given-up job is recorded with. */
export function failureKind(error: Error): ErrorKind {
  if (error instanceof JobFailure || error instanceof ToolFailure) return error.kind
  if (error instanceof JobAbort && error.kind === 'timeout') return 'timeout'
  return 'internal'
}

async function loadArtwork(ctx: AppContext, row: MusicJobRow, dir: string, signal: AbortSignal): Promise<Artwork | null> {
  if (row.artworkFile) {
    const bytes = await readFile(inside(dir, row.artworkFile))
    const kind = sniffImage(bytes)
    return kind ? { ...kind, bytes } : null
  }
  if (!row.artworkUrl) return null
  try {
    const artwork = await fetchArtwork(row.artworkUrl, ctx.allow, signal)
    const file = `artwork.${artwork.ext}`
    await writeFile(inside(dir, file), artwork.bytes)
    await updateMusicJob(ctx.db, row.id, { artworkFile: file })
    return artwork
  } catch (err) {
    signal.throwIfAborted()
    // a missing cover should not cost the user the track
    log.warn('artwork fetch failed, tagging without it', { id: row.id, ...errorFields(err) })
    return null
  }
}
