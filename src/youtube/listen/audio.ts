import { mkdir, rename, rm, stat } from 'node:fs/promises'
import { extname, join } from 'node:path'
import { and, eq, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { AppContext } from '../../context.ts'
import type { Tx } from '../../db/client.ts'
import { JobLater, PermanentJobError, type JobDefinition } from '../../jobs/types.ts'
import { errorFields, log } from '../../lib/logger.ts'
import { StorageUnavailable, saveToDisk, whileUnavailable } from '../../storage/index.ts'
import { failureKind } from '../../music/pipeline.ts'
import { ToolFailure, TRANSIENT_KINDS, youtubeFailureSentence } from '../../tools/failure.ts'
import { PaceWait } from '../../tools/pace.ts'
import { downloadAudio } from '../../tools/ytdlp.ts'
import { publishAudioEnd } from './audio-push.ts'
import type { Chapter } from '../../tools/chapters.ts'
import { audioFailedForEpisodes, episodesInFeeds } from './episode-queries.ts'
import { saveAudioTexts, subtitleLangs } from './texts.ts'
import { youtubeAudio, youtubePodcastEpisodes } from './tables.ts'

/**
 * Listen mode's audio (docs/decisions/192): a video's best audio, fetched once
 * with yt-dlp as is (no re-encoding) into DATA_DIR/audio/<videoId>.<ext> by a
 * queued job, served with byte ranges, and kept within AUDIO_CACHE_MB by
 * removing the least recently played first.
 */
export type AudioState = 'fetching' | 'ready' | 'failed'
export type AudioRow = typeof youtubeAudio.$inferSelect

/** The longest a fetch waits in the job for its YouTube turn; beyond it the job is put back in the queue. */
const IN_RUN_WAIT_MS = 60_000
/** A failure is reported this long (a player polling POST sees it), then POST starts over. */
export const FAILED_FOR_MS = 60_000
/** A play marks the audio as played at most this often (one write per minute, not per range request). */
const PLAYED_EVERY_MS = 60_000

export const audioDir = (ctx: AppContext) => join(ctx.env.DATA_DIR, 'audio')
/** The store key of a file under DATA_DIR/audio (`<id>.m4a`, `podcast/<file>.mp3`): src/storage. */
export const audioKey = (rel: string) => `audio/${rel}`

/** Whether a cached audio file is stored; a store that does not answer counts as "there" (its route answers 503). */
export async function audioStored(ctx: AppContext, rel: string | null): Promise<boolean> {
  if (!rel) return false
  return ctx.storage.store.head(audioKey(rel)).then(
    (info) => !!info,
    (err) => err instanceof StorageUnavailable,
  )
}

/**
 * Finishes a file made in DATA_DIR/audio: stored under its key (waiting while the store is
 * unreachable); with STORAGE=s3 the local copy was passing work and goes.
 */
export async function storeAudioFile(ctx: AppContext, rel: string, type: string, signal?: AbortSignal) {
  const path = join(audioDir(ctx), rel)
  await whileUnavailable(() => ctx.storage.store.putFile(audioKey(rel), path, { type, move: true }), { signal })
  if (ctx.storage.store.kind !== 'local') await rm(path, { force: true })
}

/** A stored file copied to `path` on this machine (waiting while the store is unreachable). */
export async function copyToDisk(ctx: AppContext, key: string, path: string) {
  await whileUnavailable(() => saveToDisk(ctx.storage.store, key, path))
}

/** Removes a cached audio file from the store (one the store cannot remove now is left for `storage check`). */
export async function removeAudioFile(ctx: AppContext, rel: string) {
  await ctx.storage.store.delete(audioKey(rel)).catch((err) => log.warn('audio file not removed from the store', errorFields(err)))
}

/**
 * What else waits for a video's audio, told once it is ready: podcast episodes made from it
 * (episodes.ts adds its call-back; it imports this module, so this one cannot import it).
 */
export const whenAudioReady: ((ctx: AppContext, videoId: string) => Promise<void>)[] = []
export const watchUrl = (videoId: string) => `https://www.youtube.com/watch?v=${videoId}`

const TYPES: Record<string, string> = {
  '.m4a': 'audio/mp4',
  '.mp4': 'audio/mp4',
  '.aac': 'audio/aac',
  '.webm': 'audio/webm',
  '.weba': 'audio/webm',
  '.opus': 'audio/ogg',
  '.ogg': 'audio/ogg',
  '.mp3': 'audio/mpeg',
  '.flac': 'audio/flac',
  '.wav': 'audio/wav',
}
/** The Content-Type of a stored file, by the extension yt-dlp gave it. */
export const audioType = (file: string) => TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream'

export async function getAudio(db: Tx, videoId: string): Promise<AudioRow | undefined> {
  const [row] = await db.select().from(youtubeAudio).where(eq(youtubeAudio.videoId, videoId))
  return row
}

export const audioJson = (row: AudioRow | undefined) => ({ state: (row?.state ?? 'fetching') as AudioState, error: row?.state === 'failed' ? row.error : null })

/**
 * POST: ready, under way, or failed less than FAILED_FOR_MS ago → as is; none yet, failed
 * earlier, or ready with its file gone → (re)start the fetch.
 * The job id is per video, so a lost job is queued again without doubling a live one.
 */
/**
 * Whose fetch it is (docs/decisions/220): Listen is work a person started by hand, a podcast
 * episode background work; the first request of a video's audio sets its place in the queue.
 */
export interface AudioClaim {
  owner: string
  work: 'hand' | 'background'
}

export async function requestAudio(ctx: AppContext, videoId: string, claim: AudioClaim): Promise<AudioRow> {
  const row = await getAudio(ctx.db, videoId)
  if (row?.state === 'ready' && (await audioStored(ctx, row.file))) return row
  if (row?.state === 'failed' && row.failedAt && Date.now() - row.failedAt.getTime() < FAILED_FOR_MS) return row
  if (row?.state !== 'fetching') {
    await ctx.db
      .insert(youtubeAudio)
      .values({ videoId, state: 'fetching' })
      .onConflictDoUpdate({ target: youtubeAudio.videoId, set: { state: 'fetching', error: null, failedAt: null, file: null, size: null, createdAt: sql`now()` } })
  }
  await ctx.jobs.enqueue(fetchAudioJob, { videoId, ...claim }, { jobId: `youtube.audio.${videoId}`, fair: { lane: claim.work, owner: claim.owner } })
  return (await getAudio(ctx.db, videoId))!
}

/** Marks a play (for the least-recently-played order), at most once a minute. */
export async function markPlayed(db: Tx, videoId: string) {
  await db
    .update(youtubeAudio)
    .set({ playedAt: sql`now()` })
    .where(and(eq(youtubeAudio.videoId, videoId), sql`${youtubeAudio.playedAt} < now() - make_interval(secs => ${PLAYED_EVERY_MS / 1000})`))
}

async function failAudio(ctx: AppContext, videoId: string, error: Error) {
  const sentence = youtubeFailureSentence(failureKind(error), error.message)
  await ctx.db.update(youtubeAudio).set({ state: 'failed', error: sentence, failedAt: sql`now()` }).where(and(eq(youtubeAudio.videoId, videoId), eq(youtubeAudio.state, 'fetching')))
  publishAudioEnd(ctx, { videoId, state: 'failed', error: sentence })
  await audioFailedForEpisodes(ctx, videoId, sentence)
}

/**
 * Keeps listening's audio within AUDIO_CACHE_MB (docs/decisions/192, 208): listen-mode audio
 * and podcast episode files together, least recently played first. Never removed: `keep`
 * (the audio just fetched), episodes in some feed now, and the audio a waiting episode is
 * made from. Returns the removed files (relative to DATA_DIR/audio).
 */
export async function enforceAudioCache(ctx: AppContext, keep: string | null): Promise<string[]> {
  const limit = ctx.env.AUDIO_CACHE_MB * 1024 * 1024
  const audio = await ctx.db
    .select({ videoId: youtubeAudio.videoId, file: youtubeAudio.file, size: youtubeAudio.size, playedAt: youtubeAudio.playedAt })
    .from(youtubeAudio)
    .where(eq(youtubeAudio.state, 'ready'))
  const episodes = await ctx.db
    .select({ videoId: youtubePodcastEpisodes.videoId, cut: youtubePodcastEpisodes.cut, file: youtubePodcastEpisodes.file, size: youtubePodcastEpisodes.size, playedAt: youtubePodcastEpisodes.playedAt })
    .from(youtubePodcastEpisodes)
    .where(eq(youtubePodcastEpisodes.state, 'ready'))
  let total = [...audio, ...episodes].reduce((sum, r) => sum + (r.size ?? 0), 0)
  const removed: string[] = []
  if (total <= limit) return removed
  const inFeeds = await episodesInFeeds(ctx.db)
  const waiting = new Set(
    (await ctx.db.selectDistinct({ videoId: youtubePodcastEpisodes.videoId }).from(youtubePodcastEpisodes).where(eq(youtubePodcastEpisodes.state, 'fetching'))).map((r) => r.videoId),
  )
  const candidates = [
    ...audio.filter((r) => r.videoId !== keep && !waiting.has(r.videoId)).map((r) => ({ ...r, cut: null as string | null })),
    ...episodes.filter((r) => !inFeeds.has(`${r.videoId}|${r.cut}`)),
  ].sort((x, y) => x.playedAt.getTime() - y.playedAt.getTime() || (x.videoId < y.videoId ? -1 : 1))
  for (const r of candidates) {
    if (total <= limit) break
    // the row first: a request in between answers "not ready" rather than a missing file
    const [gone] =
      r.cut === null
        ? await ctx.db.delete(youtubeAudio).where(and(eq(youtubeAudio.videoId, r.videoId), eq(youtubeAudio.state, 'ready'))).returning({ file: youtubeAudio.file })
        : await ctx.db
            .delete(youtubePodcastEpisodes)
            .where(and(eq(youtubePodcastEpisodes.videoId, r.videoId), eq(youtubePodcastEpisodes.cut, r.cut), eq(youtubePodcastEpisodes.state, 'ready')))
            .returning({ file: youtubePodcastEpisodes.file })
    const rel = r.file && (r.cut === null ? r.file : join('podcast', r.file))
    if (gone && rel) await removeAudioFile(ctx, rel)
    total -= r.size ?? 0
    if (rel) removed.push(rel)
  }
  if (removed.length) log.info('audio cache: least recently played removed', { removed: removed.length, bytes: total, limit })
  return removed
}

export const fetchAudioJob: JobDefinition<{ videoId: string; owner?: string; work?: 'hand' | 'background' }> = {
  name: 'youtube.audio',
  payload: z.object({ videoId: z.string().regex(/^[\w-]{11}$/), owner: z.string().optional(), work: z.enum(['hand', 'background']).optional() }),
  backoff: 'exponential',
  async run(ctx, { videoId, owner, work: claimed }, job) {
    const row = await getAudio(ctx.db, videoId)
    if (row?.state !== 'fetching') return
    const dir = audioDir(ctx)
    const work = join(dir, `.fetch-${videoId}-${job.id.replace(/[^\w-]/g, '_').slice(-32)}`)
    await mkdir(work, { recursive: true, mode: 0o700 })
    try {
      const url = watchUrl(videoId)
      let path: string
      let chapters: Chapter[]
      try {
        // the chapters and subtitles come in the same pass, for podcast episodes (texts.ts)
        ;({ path, chapters } = await ctx.tools.withYtdlp((cfg) => downloadAudio(cfg, url, work, job.signal, () => {}, subtitleLangs(ctx)), {
          url,
          signal: job.signal,
          maxWaitMs: IN_RUN_WAIT_MS,
          owner: owner ?? null,
          work: claimed ?? 'hand',
        }))
      } catch (err) {
        if (err instanceof PaceWait && !job.signal.aborted) throw new JobLater(err.until, err.message)
        // a failure another attempt would not fix is told at once
        if (err instanceof ToolFailure && (!TRANSIENT_KINDS.has(err.kind) || job.attempt >= job.attempts)) {
          await failAudio(ctx, videoId, err)
          throw new PermanentJobError(err.message)
        }
        throw err
      }
      await saveAudioTexts(ctx, videoId, work, chapters)
      const file = `${videoId}${extname(path).toLowerCase()}`
      await rename(path, join(dir, file))
      const { size } = await stat(join(dir, file))
      // ready only once stored
      await storeAudioFile(ctx, file, audioType(file), job.signal)
      const [done] = await ctx.db
        .update(youtubeAudio)
        .set({ state: 'ready', error: null, file, size, contentType: audioType(file), playedAt: sql`now()` })
        .where(and(eq(youtubeAudio.videoId, videoId), eq(youtubeAudio.state, 'fetching')))
        .returning()
      if (!done) await removeAudioFile(ctx, file)
      else {
        // the people waiting hear it now (audio-push.ts), before the episodes and the cache's tidying
        publishAudioEnd(ctx, { videoId, state: 'ready', error: null })
        for (const then of whenAudioReady) await then(ctx, videoId)
        await enforceAudioCache(ctx, videoId)
      }
    } finally {
      await rm(work, { recursive: true, force: true }).catch((err) => log.warn('audio work folder not removed', errorFields(err)))
    }
  },
  async onGiveUp(ctx, { videoId }, error) {
    await failAudio(ctx, videoId, error)
  },
}

