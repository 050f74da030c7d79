import { mkdir, readFile, rm, stat } from 'node:fs/promises'
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { AppContext } from '../../context.ts'
import { JobLater, PermanentJobError, type JobDefinition } from '../../jobs/types.ts'
import { errorFields, log } from '../../lib/logger.ts'
import { failureKind } from '../../music/pipeline.ts'
import { failureSentence, ToolFailure, TRANSIENT_KINDS } from '../../tools/failure.ts'
import { PaceWait } from '../../tools/pace.ts'
import { channelArt } from '../listen/art.ts'
import { watchUrl } from '../listen/audio.ts'
import { youtubeChannels, youtubeVideos } from '../tables.ts'
import { keepFreeBytes, keepPath, keptSize, moveIntoKept, removeKept, workDir, writeKept } from './files.ts'
import { keptFilesChanged } from './media-servers.ts'
import { episodeNfo, episodeNumber, episodePaths, showFolder, tvshowNfo } from './names.ts'
import { keepHooks } from './rules.ts'
import { youtubeKeeps, youtubeKeptFiles } from './tables.ts'
import { failForQuota, MB, quotaBytes, quotaSentence, quotaSentenceFor, storedBytes } from './usage.ts'
import { downloadVideo, videoType } from './ytdlp-video.ts'

/**
 * Fetching a kept video (docs/decisions/281): one job per video (`youtube.keep.<id>`), through
 * the YouTube gate as background work of its earliest keeper; yt-dlp works in KEEP_DIR/.work/<id>
 * (its `.part` is continued after a crash), and the finished file is renamed into the layout
 * last, after its `.nfo` and `-thumb.jpg`, so the library never holds half a file.
 */
const IN_RUN_WAIT_MS = 60_000
/** Below KEEP_MIN_FREE_MB, a fetch looks again this much later. */
const DISK_RETRY_MS = 5 * 60_000
/** The size limit when no quota sets one (a kept video is not an upload). */
const NO_LIMIT_BYTES = 1024 ** 4

export const jobIdOf = (videoId: string) => `youtube.keep.${videoId}`

/** Why keeping waits for disk space (GET /api/admin/status `disk.keep`), per process. */
export const diskWait: { since: string | null; freeBytes: number | null } = { since: null, freeBytes: null }

/** The live keepers of a video, earliest first. */
export async function keepersOf(ctx: AppContext, videoId: string) {
  return ctx.db
    .select()
    .from(youtubeKeeps)
    .where(and(eq(youtubeKeeps.videoId, videoId), isNull(youtubeKeeps.removedAt), isNull(youtubeKeeps.errorKind)))
    .orderBy(asc(youtubeKeeps.createdAt), asc(youtubeKeeps.userId))
}

const getFile = async (ctx: AppContext, videoId: string) => (await ctx.db.select().from(youtubeKeptFiles).where(eq(youtubeKeptFiles.videoId, videoId)))[0]

/** Removes a stored video with its `.nfo` and `-thumb.jpg` (a store down meanwhile leaves strays `storage check` lists). */
async function removeStored(ctx: AppContext, file: string) {
  const base = file.replace(/\.[^./]+$/, '')
  for (const rel of [file, `${base}.nfo`, `${base}-thumb.jpg`])
    await removeKept(ctx, rel).catch((err) => log.warn('kept file not removed from the store', { videoFile: rel, ...errorFields(err) }))
}

/**
 * Brings a video's one file in line with its keepers: none left → the file goes; a larger height
 * asked than fetched → fetched again (the old file served meanwhile); none yet → queued.
 */
export async function syncVideo(ctx: AppContext, videoId: string): Promise<void> {
  const keepers = await keepersOf(ctx, videoId)
  const row = await getFile(ctx, videoId)
  if (!keepers.length) {
    if (!row) return
    const [gone] = await ctx.db.delete(youtubeKeptFiles).where(eq(youtubeKeptFiles.videoId, videoId)).returning()
    if (gone?.file) {
      await removeStored(ctx, gone.file)
      keptFilesChanged(ctx)
    }
    await rm(workDir(ctx, videoId), { recursive: true, force: true })
    return
  }
  const want = Math.max(...keepers.map((k) => k.maxHeight))
  if (!row) {
    const [video] = await ctx.db.select({ channelId: youtubeVideos.channelId }).from(youtubeVideos).where(eq(youtubeVideos.id, videoId))
    if (!video) return
    await ctx.db.insert(youtubeKeptFiles).values({ videoId, channelId: video.channelId, state: 'queued', wantHeight: want }).onConflictDoNothing()
  } else if (want > row.wantHeight) {
    await ctx.db.update(youtubeKeptFiles).set({ state: 'queued', wantHeight: want, error: null, errorKind: null, updatedAt: sql`now()` }).where(eq(youtubeKeptFiles.videoId, videoId))
  } else if (row.state === 'ready' || row.state === 'failed') return
  await ctx.jobs.enqueue(keepFetchJob, { videoId }, { jobId: jobIdOf(videoId) })
}
keepHooks.sync = syncVideo

/** A failed file is tried again (a keep asked by hand). */
export async function retryFailed(ctx: AppContext, videoId: string) {
  const [row] = await ctx.db
    .update(youtubeKeptFiles)
    .set({ state: 'queued', error: null, errorKind: null, updatedAt: sql`now()` })
    .where(and(eq(youtubeKeptFiles.videoId, videoId), eq(youtubeKeptFiles.state, 'failed')))
    .returning()
  if (row) await ctx.jobs.enqueue(keepFetchJob, { videoId }, { jobId: jobIdOf(videoId) })
}

async function failFile(ctx: AppContext, videoId: string, error: Error) {
  const kind = failureKind(error)
  // a file already stored stays served: only this fetch failed
  await ctx.db
    .update(youtubeKeptFiles)
    .set({ state: sql`case when ${youtubeKeptFiles.file} is null then 'failed' else 'ready' end`, error: failureSentence(kind, error.message), errorKind: kind, updatedAt: sql`now()` })
    .where(and(eq(youtubeKeptFiles.videoId, videoId), inArray(youtubeKeptFiles.state, ['queued', 'fetching'])))
}

/** The episode number, fixed once written: n counts that day's videos of the channel, the first free one. */
async function episodeOf(ctx: AppContext, video: { id: string; channelId: string; publishedAt: Date }): Promise<number> {
  const day = video.publishedAt.toISOString().slice(0, 10)
  const [{ n } = { n: 0 }] = await ctx.db
    .select({ n: sql<number>`count(*)::int` })
    .from(youtubeVideos)
    .where(
      and(
        eq(youtubeVideos.channelId, video.channelId),
        sql`(${youtubeVideos.publishedAt} at time zone 'UTC')::date = ${day}::date`,
        sql`(${youtubeVideos.publishedAt}, ${youtubeVideos.id}) < (${video.publishedAt.toISOString()}::timestamptz, ${video.id})`,
      ),
    )
  const taken = new Set(
    (
      await ctx.db
        .select({ e: youtubeKeptFiles.episode })
        .from(youtubeKeptFiles)
        .innerJoin(youtubeVideos, eq(youtubeVideos.id, youtubeKeptFiles.videoId))
        .where(and(eq(youtubeKeptFiles.channelId, video.channelId), sql`extract(year from ${youtubeVideos.publishedAt} at time zone 'UTC') = ${video.publishedAt.getUTCFullYear()}`))
    ).map((r) => r.e),
  )
  let e = episodeNumber(video.publishedAt, Number(n) + 1)
  while (taken.has(e)) e++
  return e
}

/** The show's tvshow.nfo and poster.jpg, written once (the poster: the channel's picture, else this video's thumbnail). */
async function writeShow(ctx: AppContext, channel: { id: string; title: string; thumbnail: string }, thumb: string | null, signal: AbortSignal) {
  const show = showFolder(channel.title, channel.id)
  if ((await keptSize(ctx, `${show}/tvshow.nfo`, signal)) === null) await writeKept(ctx, `${show}/tvshow.nfo`, tvshowNfo(channel), signal)
  if ((await keptSize(ctx, `${show}/poster.jpg`, signal)) !== null) return
  const art = await channelArt(ctx, channel.id, channel.thumbnail, signal).catch(() => null)
  const from = art ?? thumb
  if (from) await writeKept(ctx, `${show}/poster.jpg`, await readFile(from), signal)
}

/** Keepers with room for `size` bytes (or any, before the size is known); the others are failed for the quota. */
async function keepersWithRoom(ctx: AppContext, videoId: string, size: number | null) {
  const room: { userId: string; left: number; quota: number; used: number }[] = []
  for (const k of await keepersOf(ctx, videoId)) {
    const quota = await quotaBytes(ctx.db, k.userId)
    if (quota === null) {
      room.push({ userId: k.userId, left: Number.POSITIVE_INFINITY, quota: Number.POSITIVE_INFINITY, used: 0 })
      continue
    }
    const used = await storedBytes(ctx.db, k.userId, videoId)
    if (used >= quota) await failForQuota(ctx.db, k.userId, videoId, quotaSentence(quota, used))
    else if (size !== null && used + size > quota) await failForQuota(ctx.db, k.userId, videoId, quotaSentenceFor(quota, used, size))
    else room.push({ userId: k.userId, left: quota - used, quota, used })
  }
  return room
}

export const keepFetchJob: JobDefinition<{ videoId: string }> = {
  name: 'youtube.keepVideo',
  payload: z.object({ videoId: z.string().regex(/^[\w-]{11}$/) }),
  backoff: 'exponential',
  // a long video at a large height over a slow line; the gate's wait is not in it (JobLater)
  timeoutMs: 3 * 60 * 60 * 1000,
  async run(ctx, { videoId }, job) {
    const row = await getFile(ctx, videoId)
    if (row?.state !== 'queued' && row?.state !== 'fetching') return
    // the floor of free disk: wait (and say so in the admin status)
    const free = await keepFreeBytes(ctx)
    if (free !== null && free < ctx.env.KEEP_MIN_FREE_MB * MB) {
      diskWait.since ??= new Date().toISOString()
      diskWait.freeBytes = free
      throw new JobLater(new Date(Date.now() + DISK_RETRY_MS), 'waits for free disk space')
    }
    diskWait.since = null
    const room = await keepersWithRoom(ctx, videoId, null)
    if (!room.length) return void (await syncVideo(ctx, videoId))
    const [video] = await ctx.db.select().from(youtubeVideos).where(eq(youtubeVideos.id, videoId))
    const [channel] = video ? await ctx.db.select().from(youtubeChannels).where(eq(youtubeChannels.id, video.channelId)) : []
    if (!video || !channel) return
    await ctx.db.update(youtubeKeptFiles).set({ state: 'fetching', updatedAt: sql`now()` }).where(eq(youtubeKeptFiles.videoId, videoId))
    const limit = Math.max(...room.map((r) => r.left))
    const work = workDir(ctx, videoId)
    await mkdir(work, { recursive: true })
    const url = watchUrl(videoId)
    const ffmpegPath = ctx.tools.ffmpeg?.path ?? null
    let fetched: Awaited<ReturnType<typeof downloadVideo>>
    try {
      fetched = await ctx.tools.withYtdlp((cfg) => downloadVideo(cfg, url, work, row.wantHeight, ffmpegPath, job.signal), {
        url,
        owner: room[0]!.userId,
        work: 'background',
        signal: job.signal,
        maxWaitMs: IN_RUN_WAIT_MS,
        maxFilesize: Number.isFinite(limit) ? Math.max(1, Math.floor(limit)) : NO_LIMIT_BYTES,
      })
    } catch (err) {
      // stopped (shutdown, timeout, cancel): the row stays `fetching` and the `.part` in the work folder, for the next run
      if (job.signal.aborted) throw err
      if (err instanceof PaceWait) throw new JobLater(err.until, err.message)
      if (err instanceof ToolFailure && err.kind === 'too_large' && Number.isFinite(limit)) {
        // larger than the room of every keeper with a quota: those are told; the others fetch it
        for (const r of room) if (Number.isFinite(r.left)) await failForQuota(ctx.db, r.userId, videoId, quotaSentenceFor(r.quota, r.used, null))
        await ctx.db.update(youtubeKeptFiles).set({ state: 'queued' }).where(eq(youtubeKeptFiles.videoId, videoId))
        return void (await syncVideo(ctx, videoId))
      }
      if (err instanceof ToolFailure && (!TRANSIENT_KINDS.has(err.kind) || job.attempt >= job.attempts)) {
        await failFile(ctx, videoId, err)
        throw new PermanentJobError(err.message)
      }
      throw err
    }
    const { size } = await stat(fetched.path)
    if (!(await keepersWithRoom(ctx, videoId, size)).length) {
      await rm(work, { recursive: true, force: true })
      return void (await syncVideo(ctx, videoId))
    }
    // into the layout: the picture and the .nfo first, the video last (its final name means complete)
    const current = (await getFile(ctx, videoId))!
    const episode = current.episode ?? (await episodeOf(ctx, video))
    const paths = episodePaths(channel, video)
    const file = `${paths.base}.${fetched.ext}`
    keepPath(ctx, file) // throws if a name could leave KEEP_DIR (it cannot: names.ts)
    // into the store (waiting while it cannot be reached): the row says ready only once the video is stored
    try {
      await writeShow(ctx, channel, fetched.thumbnail, job.signal)
      if (fetched.thumbnail) await writeKept(ctx, `${paths.base}-thumb.jpg`, await readFile(fetched.thumbnail), job.signal)
      await writeKept(ctx, `${paths.base}.nfo`, episodeNfo(channel, video, episode), job.signal)
      await moveIntoKept(ctx, fetched.path, file, job.signal)
    } catch (err) {
      // refused (or stopped): nothing of this fetch stays behind, unless a stored file already uses its names
      if (!current.file?.startsWith(`${paths.base}.`)) await removeStored(ctx, file)
      throw err
    }
    const [done] = await ctx.db
      .update(youtubeKeptFiles)
      .set({ state: 'ready', file, height: fetched.height, size, contentType: videoType(fetched.ext), episode, error: null, errorKind: null, updatedAt: sql`now()` })
      .where(and(eq(youtubeKeptFiles.videoId, videoId), inArray(youtubeKeptFiles.state, ['queued', 'fetching'])))
      .returning()
    if (current.file && current.file !== file) await removeStored(ctx, current.file)
    await rm(work, { recursive: true, force: true }).catch((err) => log.warn('keep work folder not removed', errorFields(err)))
    keptFilesChanged(ctx)
    // the last keeper left while it was fetched
    if (!done) await removeStored(ctx, file)
    else await syncVideo(ctx, videoId)
  },
  async onGiveUp(ctx, { videoId }, error) {
    await failFile(ctx, videoId, error)
  },
  async owner(ctx, { videoId }) {
    return (await keepersOf(ctx, videoId))[0]?.userId ?? null
  },
}
