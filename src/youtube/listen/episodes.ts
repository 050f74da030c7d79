import { mkdir, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { and, eq, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { AppContext } from '../../context.ts'
import type { JobDefinition } from '../../jobs/types.ts'
import { errorFields, log } from '../../lib/logger.ts'
import { failureKind } from '../../music/pipeline.ts'
import { clipSegments } from '../../music/sponsorblock.ts'
import { convertToMp3, probeMedia } from '../../tools/ffmpeg.ts'
import { youtubeFailureSentence } from '../../tools/failure.ts'
import { audioDir, audioKey, audioStored, copyToDisk, enforceAudioCache, removeAudioFile, storeAudioFile, FAILED_FOR_MS, getAudio, requestAudio, whenAudioReady } from './audio.ts'
import { audioFailedForEpisodes, cutTag, episodeDir, episodeFile, episodeWanted, getEpisode } from './episode-queries.ts'
import { SPONSORBLOCK_CATEGORIES } from './schema.ts'
import { skipSpans } from './segments.ts'
import { youtubePodcastEpisodes } from './tables.ts'
import { makeEpisodeTexts, saveEpisodeTexts } from './texts.ts'

/**
 * Podcast episodes (docs/decisions/206): a video's listen-mode audio (audio.ts, fetched once
 * with yt-dlp within the pacing) with the user's `skip` SponsorBlock categories cut out by the
 * music jobs' cut (`convertToMp3` with `remove` spans: ffmpeg's aselect), always as MP3 so
 * every podcast app plays it. One file per video and set of categories (`cut`).
 */
const jobIdOf = (videoId: string, cut: string) => `youtube.episode.${videoId}.${cutTag(cut)}`

const fileThere = (ctx: AppContext, file: string | null) => audioStored(ctx, file && `podcast/${file}`)

/**
 * Makes sure the episode is made or under way. Ready with its file → as is (an `uncut` one,
 * made while SponsorBlock was down, is made again when `remakeUncut`); failed → left alone
 * when `retryFailed` is false (the schedule), else after FAILED_FOR_MS started again.
 */
export interface EpisodeRequest {
  /** The person whose podcast wants it: the fetch is their background work (docs/decisions/220). */
  owner: string
  retryFailed?: boolean
  remakeUncut?: boolean
}

export async function requestEpisode(ctx: AppContext, videoId: string, cut: string, opts: EpisodeRequest) {
  const enqueue = () => ctx.jobs.enqueue(episodeJob, { videoId, cut, owner: opts.owner }, { jobId: jobIdOf(videoId, cut), fair: { lane: 'background', owner: opts.owner } })
  const row = await getEpisode(ctx.db, videoId, cut)
  if (row?.state === 'ready' && (await fileThere(ctx, row.file))) {
    if (row.uncut && opts.remakeUncut) await enqueue()
    return
  }
  if (row?.state === 'failed' && (opts.retryFailed === false || (row.failedAt && Date.now() - row.failedAt.getTime() < FAILED_FOR_MS))) return
  if (row?.state !== 'fetching') {
    await ctx.db
      .insert(youtubePodcastEpisodes)
      .values({ videoId, cut, state: 'fetching' })
      .onConflictDoUpdate({
        target: [youtubePodcastEpisodes.videoId, youtubePodcastEpisodes.cut],
        set: { state: 'fetching', error: null, failedAt: null, file: null, size: null, duration: null, createdAt: sql`now()` },
      })
  }
  await enqueue()
}

/** The video's audio is ready: its waiting episodes are made now (audio.ts calls it, registered below). */
export async function audioReadyForEpisodes(ctx: AppContext, videoId: string) {
  const waiting = await ctx.db
    .select({ cut: youtubePodcastEpisodes.cut })
    .from(youtubePodcastEpisodes)
    .where(and(eq(youtubePodcastEpisodes.videoId, videoId), eq(youtubePodcastEpisodes.state, 'fetching')))
  // the cut itself needs no YouTube turn: in the queue's first come, first served order
  for (const w of waiting) await ctx.jobs.enqueue(episodeJob, { videoId, cut: w.cut }, { jobId: jobIdOf(videoId, w.cut) })
}

async function dropWaitingEpisode(ctx: AppContext, videoId: string, cut: string) {
  await ctx.db
    .delete(youtubePodcastEpisodes)
    .where(and(eq(youtubePodcastEpisodes.videoId, videoId), eq(youtubePodcastEpisodes.cut, cut), eq(youtubePodcastEpisodes.state, 'fetching')))
}

async function failEpisode(ctx: AppContext, videoId: string, cut: string, error: Error) {
  await ctx.db
    .update(youtubePodcastEpisodes)
    .set({ state: 'failed', error: youtubeFailureSentence(failureKind(error), error.message), failedAt: sql`now()` })
    .where(and(eq(youtubePodcastEpisodes.videoId, videoId), eq(youtubePodcastEpisodes.cut, cut), eq(youtubePodcastEpisodes.state, 'fetching')))
}

export const episodeJob: JobDefinition<{ videoId: string; cut: string; owner?: string }> = {
  name: 'youtube.podcastEpisode',
  payload: z.object({
    videoId: z.string().regex(/^[\w-]{11}$/),
    cut: z.string().refine((s) => s === '' || s.split(',').every((c) => (SPONSORBLOCK_CATEGORIES as readonly string[]).includes(c)), 'unknown category'),
    owner: z.string().optional(),
  }),
  backoff: 'exponential',
  // an hour-long talk is re-encoded in about a minute; a loaded machine gets room
  timeoutMs: 60 * 60 * 1000,
  async run(ctx, { videoId, cut, owner }, job) {
    const row = await getEpisode(ctx.db, videoId, cut)
    const remake = row?.state === 'ready' && row.uncut
    if (row?.state !== 'fetching' && !remake) return
    // nobody wants it any more (its owners disabled, or their podcast off): nothing is fetched; a
    // waiting row goes, so a later request starts afresh
    if (!(await episodeWanted(ctx.db, videoId, cut))) {
      if (!remake) await dropWaitingEpisode(ctx, videoId, cut)
      return
    }
    // 1. the video's audio, from listen mode's cache (fetched now if missing: its job calls back)
    let source = await getAudio(ctx.db, videoId)
    if (!(source?.state === 'ready' && source.file && (await audioStored(ctx, source.file)))) {
      // ready by now (its fetch ended meanwhile: its call-back found this job still running) → cut it here
      // an episode without an owner (queued before owners were recorded) is the app's own background work
      source = await requestAudio(ctx, videoId, { owner: owner ?? '', work: 'background' })
      if (source.state !== 'ready' || !source.file) {
        if (source.state === 'failed' && !remake) await audioFailedForEpisodes(ctx, videoId, source.error ?? 'The audio could not be fetched.')
        return
      }
    }
    // STORAGE=s3: the source is read from a local copy (passing work), removed at the end
    const local = ctx.storage.store.localPath(audioKey(source.file))
    const sourcePath = local ?? join(audioDir(ctx), `.${source.file}.${crypto.randomUUID()}.src`)
    // 2. what to cut: the user's skip categories, the music cut's rule (merged, clipped to the source)
    const spans = await skipSpans(ctx, videoId, cut ? cut.split(',') : [], job.signal)
    if (spans === null && remake) return // still unreachable: the uncut episode stays
    const ffmpeg = ctx.tools.ffmpeg
    const dir = episodeDir(ctx)
    const file = episodeFile(videoId, cut)
    const tmp = join(dir, `.${file}.${crypto.randomUUID()}.tmp.mp3`)
    await mkdir(dir, { recursive: true, mode: 0o700 })
    try {
      if (!local) await copyToDisk(ctx, audioKey(source.file), sourcePath)
      const remove = spans?.length ? clipSegments(spans, (await probeMedia(ffmpeg, sourcePath, job.signal)).duration) : []
      await convertToMp3(ffmpeg, sourcePath, tmp, job.signal, () => {}, { remove: remove.map((s) => [s.start, s.end] as [number, number]) }, false)
      // 3. the served file's own length; its chapters (also as ID3 CTOC/CHAP) and transcript in its time; its size
      const { duration } = await probeMedia(ffmpeg, tmp, job.signal)
      const removeSpans = remove.map((s) => [s.start, s.end] as [number, number])
      const texts = await makeEpisodeTexts(ctx.db, videoId, removeSpans, tmp, duration ?? undefined)
      const { size } = await stat(tmp)
      await rename(tmp, join(dir, file))
      // its texts before the row says it has them
      await saveEpisodeTexts(ctx.db, videoId, cut, texts)
      // ready only once stored
      await storeAudioFile(ctx, `podcast/${file}`, 'audio/mpeg', job.signal)
      const [done] = await ctx.db
        .update(youtubePodcastEpisodes)
        .set({
          state: 'ready',
          error: null,
          file,
          size,
          duration,
          removed: remove.reduce((sum, s) => sum + (s.end - s.start), 0),
          spans: removeSpans,
          uncut: spans === null,
          chapterCount: texts.chapterCount,
          transcriptLang: texts.transcriptLang,
          playedAt: sql`now()`,
        })
        .where(and(eq(youtubePodcastEpisodes.videoId, videoId), eq(youtubePodcastEpisodes.cut, cut), sql`${youtubePodcastEpisodes.state} in ('fetching', 'ready')`))
        .returning()
      if (!done) await removeAudioFile(ctx, `podcast/${file}`)
      else await enforceAudioCache(ctx, null)
    } catch (err) {
      if (job.signal.aborted) throw err
      if (!remake && err instanceof Error && job.attempt >= job.attempts) await failEpisode(ctx, videoId, cut, err)
      throw err
    } finally {
      await rm(tmp, { force: true }).catch((err) => log.warn('episode work file not removed', errorFields(err)))
      if (!local) await rm(sourcePath, { force: true })
    }
  },
  async onGiveUp(ctx, { videoId, cut }, error) {
    await failEpisode(ctx, videoId, cut, error)
  },
}

// audio.ts cannot import this module (it is imported from here): it calls back
whenAudioReady.push(audioReadyForEpisodes)
