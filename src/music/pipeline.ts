import { isDiskFull } from '../lib/faults.ts'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import type { AppContext } from '../context.ts'
import { JobAbort, JobLater, PermanentJobError, type JobRun } from '../jobs/types.ts'
import { errorFields, log } from '../lib/logger.ts'
import { checkUrl, UrlRefused } from '../lib/url-guard.ts'
import { fetchArtwork, type Artwork } from './artwork.ts'
import { boundArtwork } from './cover-scale.ts'
import { inside, jobDir, outputDir, sniffImage, workDir } from './files.ts'
import { dropLocalJob, fetchJobFiles, keptNames, removeJobFiles, storeJobFiles } from './stored.ts'
import { whileUnavailable } from '../storage/index.ts'
import { completeMusicJob, getMusicJob, setMusicJobProgress, updateMusicJob } from './queries.ts'
import type { Chapter } from './schema.ts'
import type { MusicJobRow } from './tables.ts'
import { ToolFailure, TRANSIENT_KINDS, type ErrorKind } from '../tools/failure.ts'
import { downloadAudio } from '../tools/ytdlp.ts'
import { opensPrivateList } from '../tools/private-lists.ts'
import { users } from '../auth/tables.ts'
import { eq } from 'drizzle-orm'
import { PaceWait, type PaceWaitInfo } from '../tools/pace.ts'
import { fileChapters, probeMedia } from '../tools/ffmpeg.ts'
import { convertChapters, convertWhole } from './split.ts'
import { queueWebdavUpload } from './webdav-job.ts'
import { publishMusicEvent } from './events.ts'
import { findLyrics } from './lyrics.ts'
import { squareArtwork } from './square.ts'
import { clipSegments, cutNotice, fetchSegments, SponsorBlockUnavailable, youtubeVideoId } from './sponsorblock.ts'

const PROGRESS_EVERY_MS = 250
/** The stored copy (job row and queue) follows less often: each write costs the server a query. */
const STORE_EVERY_MS = 2000

/**
 * Progress 0-100, pushed at most every 250 ms and only when the whole percent
 * changes (docs/api.md, the music socket); stored at most every 2 s, and
 * always when forced.
 */
function progressReporter(ctx: AppContext, row: MusicJobRow, run: JobRun) {
  let last = -1
  let lastAt = 0
  let storedAt = 0
  let pending: Promise<unknown> = Promise.resolve()
  return (percent: number, force = false) => {
    const value = Math.max(0, Math.min(100, Math.floor(percent)))
    const now = performance.now()
    if (value <= last || (!force && now - lastAt < PROGRESS_EVERY_MS)) return
    last = value
    lastAt = now
    publishMusicEvent(ctx, row.userId, { id: row.id, status: 'PROGRESS', progress: value })
    if (!force && now - storedAt < STORE_EVERY_MS) return
    storedAt = now
    pending = pending
      .then(() => Promise.all([setMusicJobProgress(ctx.db, row.id, value), run.progress(value)]))
      .catch((err) => log.warn('progress update failed', { id: row.id, ...errorFields(err) }))
  }
}

/**
 * `music.run`: source (yt-dlp download or the upload) → MP3 (ffmpeg) → ID3
 * tags with artwork (node-id3) → output/<Artist - Title>.mp3; then the WebDAV
 * upload is queued (its own job) when the user has an account. Idempotent: a finished or deleted job is left
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
  // a retry on a machine whose folder lacks the upload or artwork (STORAGE=s3) fetches them first
  await whileUnavailable(() => fetchJobFiles(ctx, row, keptNames({ uploadFile: row.uploadFile, artworkFile: row.artworkFile })), { signal })
  const report = progressReporter(ctx, row, run)
  await updateMusicJob(ctx.db, row.id, { startedAt: new Date(), progress: 0, outputFile: null, tracks: [], notice: null, webdav: null, webdavError: null })
  publishMusicEvent(ctx, row.userId, { id: row.id, status: 'STARTED' })

  try {
    // 1. the source (and the chapters yt-dlp knows of)
    let source: string
    let chapters: Chapter[] = []
    const convertFrom = row.videoUrl ? 45 : 0
    if (row.videoUrl) {
      const url = row.videoUrl
      try {
        await checkUrl(url, ctx.allow)
      } catch (err) {
        if (err instanceof UrlRefused) throw new JobFailure('unsupported_url', `video URL refused: ${err.message}`)
        throw err
      }
      // the cookies' account's own lists are for admins only (src/tools/private-lists.ts), also for a job made before the rule
      if (opensPrivateList(url) && !(await isAdmin(ctx, row.userId))) throw new JobFailure('unsupported_url', 'video URL refused: a private list of the cookies account')
      // a YouTube link takes its turn at the app-wide gate (src/tools/pace.ts): a near turn is
      // waited for here, a far one (or a bot-check pause) puts the job back in the queue until then
      let waiting = row.waitingReason !== null
      const onWait = async (info: PaceWaitInfo | null) => {
        if (!info && !waiting) return
        waiting = info !== null
        await setWaiting(ctx, row, info)
      }
      try {
        ;({ path: source, chapters } = await ctx.tools.withYtdlp((cfg) => downloadAudio(cfg, url, work, signal, (f) => report(f * convertFrom)), {
          url,
          signal,
          maxWaitMs: IN_RUN_WAIT_MS,
          onWait,
          owner: row.userId,
          work: 'hand',
        }))
      } catch (err) {
        if (err instanceof PaceWait && !signal.aborted) {
          await setWaiting(ctx, row, { reason: err.reason, until: err.until })
          throw new JobLater(err.until, err.message)
        }
        throw err
      }
    } else {
      if (!row.uploadFile) throw new PermanentJobError('job has neither a video URL nor an upload')
      source = inside(dir, row.uploadFile)
    }

    // 2. artwork: stored at creation (data URI), or fetched now through the guard
    const loaded = await loadArtwork(ctx, row, dir, signal)
    const artwork = loaded && (await squareArtwork(ctx.tools.ffmpeg, loaded, work, signal))

    // 3. what to convert: chapters, or the whole minus SponsorBlock's segments
    const notices: string[] = []
    if (row.splitChapters && !chapters.length) chapters = await fileChapters(ctx.tools.ffmpeg, source, signal)
    if (row.splitChapters && !chapters.length) notices.push('No chapters found: converted as one track.')
    const split = row.splitChapters && chapters.length > 0
    const cut = split ? { remove: [], notice: null } : await segmentsToRemove(ctx, row, source, signal)
    if (cut.notice) notices.push(cut.notice)

    // 4. convert, measure and tag in the work folder, then move into output/
    const progress = (f: number) => report(convertFrom + f * (95 - convertFrom))
    const out = split
      ? await convertChapters(ctx.tools.ffmpeg, { source, work, output: outputDir(dir), row, artwork, chapters, signal, progress })
      : await convertWhole(ctx.tools.ffmpeg, { source, work, output: outputDir(dir), row, artwork, remove: cut.remove, signal, progress })
    report(97, true)
    // the song's lyrics, kept with the job (a split job's chapters have none: lyrics.ts)
    const lyrics = split ? null : await findLyrics(ctx, row, inside(dir, out.outputFile), source, signal)

    // 5. finished only once stored: the outputs, the artwork and the upload go into the store
    const named = await getMusicJob(ctx.db, row.id)
    const inputs = keptNames({ uploadFile: row.uploadFile, artworkFile: row.artworkFile })
    await storeJobFiles(ctx, row, keptNames({ uploadFile: row.uploadFile, artworkFile: named?.artworkFile, outputFile: out.outputFile, tracks: out.tracks }), signal, inputs)
    signal.throwIfAborted()
    const done = await completeMusicJob(ctx.db, row.id, {
      outputFile: out.outputFile,
      tracks: out.tracks,
      trackCount: split ? chapters.length : row.trackCount,
      notice: notices.join(' ') || null,
      lyrics: lyrics?.lyrics ?? null,
      lyricsSource: lyrics?.lyricsSource ?? null,
    })
    // 5. WebDAV on its own (webdav-job.ts): the track is ready now, whatever the WebDAV server does
    // a job deleted meanwhile leaves nothing in the store
    if (done) await dropLocalJob(ctx, row)
    else await removeJobFiles(ctx, row)
    if (done) await queueWebdavUpload(ctx, done)
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

/** The longest a job waits for its YouTube turn while holding its worker slot; beyond, it waits in the queue. */
const IN_RUN_WAIT_MS = 60_000

/** The job row says whether (and why) the job waits for its turn; the list follows (STARTED refreshes it). */
async function setWaiting(ctx: AppContext, row: MusicJobRow, info: PaceWaitInfo | null) {
  await updateMusicJob(ctx.db, row.id, { waitingReason: info?.reason ?? null, waitingUntil: info?.until ?? null })
  publishMusicEvent(ctx, row.userId, { id: row.id, status: 'STARTED' })
}

/** SponsorBlock spans to cut from a YouTube video; an outage converts uncut and says so. */
async function segmentsToRemove(ctx: AppContext, row: MusicJobRow, source: string, signal: AbortSignal) {
  const none = { remove: [] as [number, number][], notice: null as string | null }
  const videoId = row.videoUrl ? youtubeVideoId(row.videoUrl) : null
  if (!videoId || !row.removeSegments?.length) return none
  try {
    let segments = await fetchSegments(ctx.env.SPONSORBLOCK_URL, videoId, row.removeSegments, ctx.allow, signal)
    // only what lies inside the download is cut, and counted in the notice
    if (segments.length) segments = clipSegments(segments, (await probeMedia(ctx.tools.ffmpeg, source, signal)).duration)
    return { remove: segments.map((s) => [s.start, s.end] as [number, number]), notice: segments.length ? cutNotice(segments) : null }
  } catch (err) {
    if (!(err instanceof SponsorBlockUnavailable)) throw err
    log.warn('sponsorblock unavailable, converting uncut', { id: row.id, error: err.message })
    return { ...none, notice: 'SponsorBlock could not be reached: converted without removing non-music parts.' }
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
  // a user's job starts at most one check an hour (throttled in src/tools/managed.ts); only an admin forces one
  if (transient && err.kind === 'tool_outdated') transient = (await ctx.tools.managed.update('user')) === 'updated'
  return transient ? err : new JobFailure(err.kind, err.message)
}

/** The kind a given-up job is recorded with. */
export function failureKind(error: Error): ErrorKind {
  if (error instanceof JobFailure || error instanceof ToolFailure) return error.kind
  if (error instanceof JobAbort && error.kind === 'timeout') return 'timeout'
  // the server's disk, not the job (an artwork, tag or rename write that found no room)
  if (isDiskFull(error)) return 'disk_full'
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
    // stored at most 4096 px on a side (src/music/cover-scale.ts)
    const artwork = await boundArtwork(ctx.tools.ffmpeg, await fetchArtwork(row.artworkUrl, ctx.allow, signal), dir, signal)
    const file = `artwork.${artwork.ext}`
    await writeFile(inside(dir, file), artwork.bytes)
    await updateMusicJob(ctx.db, row.id, { artworkFile: file })
    return artwork
  } catch (err) {
    signal.throwIfAborted()
    if (isDiskFull(err)) throw err
    // a missing cover should not cost the user the track
    log.warn('artwork fetch failed, tagging without it', { id: row.id, ...errorFields(err) })
    return null
  }
}

async function isAdmin(ctx: AppContext, userId: string): Promise<boolean> {
  const [user] = await ctx.db.select({ admin: users.admin }).from(users).where(eq(users.id, userId))
  return !!user?.admin
}
