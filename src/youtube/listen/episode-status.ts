import { and, desc, eq, inArray, isNull } from 'drizzle-orm'
import { Hono } from 'hono'
import { currentUser } from '../../auth/session.ts'
import type { AppContext, AppEnv } from '../../context.ts'
import type { Tx } from '../../db/client.ts'
import { fail } from '../../lib/errors.ts'
import { idParam } from '../../lib/fields.ts'
import { valid } from '../../lib/validate.ts'
import { youtubeSubscriptions, youtubeVideos } from '../tables.ts'
import { cutOf } from './episode-queries.ts'
import { requestEpisode } from './episodes.ts'
import { getSponsorblock } from './settings.ts'
import { youtubeAudio, youtubePodcastEpisodes, youtubePodcasts } from './tables.ts'

/**
 * What each episode of a podcast is doing (docs/decisions/270): the channel's newest `keepLast`
 * plain videos with their episode's state for the user's skip categories and, when it failed,
 * the sentence why; Retry for a failed one (or all of them); and, when every episode failed, one
 * sentence for the podcast saying so and what to do.
 */
export type EpisodeState = 'ready' | 'fetching' | 'waiting' | 'failed'
export type EpisodeStatus = { videoId: string; title: string; publishedAt: string; state: EpisodeState; error: string | null }
export type EpisodeSummary = { ready: number; fetching: number; failed: number; problem: string | null }

/** The user's enabled podcast of a followed channel, or null. */
async function enabledPodcast(db: Tx, userId: string, channelId: string) {
  const [row] = await db
    .select({ keepLast: youtubePodcasts.keepLast })
    .from(youtubePodcasts)
    .innerJoin(
      youtubeSubscriptions,
      and(eq(youtubeSubscriptions.userId, youtubePodcasts.userId), eq(youtubeSubscriptions.channelId, youtubePodcasts.channelId), isNull(youtubeSubscriptions.deletedAt)),
    )
    .where(and(eq(youtubePodcasts.userId, userId), eq(youtubePodcasts.channelId, channelId), eq(youtubePodcasts.enabled, true)))
  return row ?? null
}

/** The newest `keepLast` plain videos of the channel with their episode (for `cut`), newest first. */
export async function episodeStatuses(db: Tx, channelId: string, keepLast: number, cut: string): Promise<EpisodeStatus[]> {
  const rows = await db
    .select({ id: youtubeVideos.id, title: youtubeVideos.title, publishedAt: youtubeVideos.publishedAt, state: youtubePodcastEpisodes.state, error: youtubePodcastEpisodes.error })
    .from(youtubeVideos)
    .leftJoin(youtubePodcastEpisodes, and(eq(youtubePodcastEpisodes.videoId, youtubeVideos.id), eq(youtubePodcastEpisodes.cut, cut)))
    .where(and(eq(youtubeVideos.channelId, channelId), eq(youtubeVideos.kind, 'video')))
    .orderBy(desc(youtubeVideos.publishedAt), desc(youtubeVideos.id))
    .limit(keepLast)
  return rows.map((r) => ({
    videoId: r.id,
    title: r.title,
    publishedAt: r.publishedAt.toISOString(),
    state: (r.state ?? 'waiting') as EpisodeState,
    error: r.state === 'failed' ? (r.error ?? 'The episode could not be made.') : null,
  }))
}

/**
 * The counts, and the podcast's one sentence when every episode failed: the shared reason when
 * they all failed for the same one, and what to do.
 */
export function summarize(statuses: EpisodeStatus[]): EpisodeSummary {
  const count = (s: EpisodeState) => statuses.filter((e) => e.state === s).length
  const failed = count('failed')
  let problem: string | null = null
  if (failed > 0 && failed === statuses.length) {
    const reasons = new Set(statuses.map((e) => e.error))
    const why = reasons.size === 1 ? ` ${[...reasons][0]}` : ' Each failed for its own reason, listed with the episode.'
    problem = `No episode of this podcast could be made.${why} Once the cause is fixed, press Retry All.`
  }
  return { ready: count('ready'), fetching: count('fetching') + count('waiting'), failed, problem }
}

/** The summary for one of the user's podcasts (GET /podcasts lists it with each feed). */
export async function episodeSummary(db: Tx, userId: string, channelId: string, keepLast: number): Promise<EpisodeSummary> {
  return summarize(await episodeStatuses(db, channelId, keepLast, cutOf(await getSponsorblock(db, userId))))
}

/**
 * Starts a failed episode again now (the user's Retry): the failure is forgotten (the episode's
 * and, when the video's audio failed, the audio's, so the fetch is not answered from the failure).
 */
async function retry(ctx: AppContext, videoIds: string[], cut: string, owner: string) {
  if (videoIds.length === 0) return
  await ctx.db
    .update(youtubeAudio)
    .set({ failedAt: null })
    .where(and(inArray(youtubeAudio.videoId, videoIds), eq(youtubeAudio.state, 'failed')))
  await ctx.db
    .update(youtubePodcastEpisodes)
    .set({ failedAt: null })
    .where(and(inArray(youtubePodcastEpisodes.videoId, videoIds), eq(youtubePodcastEpisodes.cut, cut), eq(youtubePodcastEpisodes.state, 'failed')))
  for (const id of videoIds) await requestEpisode(ctx, id, cut, { owner, retryFailed: true })
}

const podcastOr404 = async (db: Tx, userId: string, channelId: string) => (await enabledPodcast(db, userId, channelId)) ?? fail(404, 'Podcast not found.')

/** Under /api/youtube (docs/api.md "Podcasts"): episodes of a podcast and Retry. */
export function episodeStatusRoutes(ctx: AppContext) {
  const { db } = ctx
  const statusJson = async (userId: string, channelId: string, keepLast: number) => {
    const episodes = await episodeStatuses(db, channelId, keepLast, cutOf(await getSponsorblock(db, userId)))
    return { episodes, ...summarize(episodes) }
  }
  return new Hono<AppEnv>()
    .get('/channels/:id/podcast/episodes', valid('param', idParam), async (c) => {
      const user = currentUser(c)
      const { keepLast } = await podcastOr404(db, user.id, c.req.param('id'))
      return c.json(await statusJson(user.id, c.req.param('id'), keepLast), 200)
    })
    .post('/channels/:id/podcast/retry', valid('param', idParam), async (c) => {
      const user = currentUser(c)
      const channelId = c.req.param('id')
      const { keepLast } = await podcastOr404(db, user.id, channelId)
      const cut = cutOf(await getSponsorblock(db, user.id))
      const failed = (await episodeStatuses(db, channelId, keepLast, cut)).filter((e) => e.state === 'failed').map((e) => e.videoId)
      await retry(ctx, failed, cut, user.id)
      return c.json(await statusJson(user.id, channelId, keepLast), 200)
    })
    .post('/podcasts/episodes/:id/retry', valid('param', idParam), async (c) => {
      const user = currentUser(c)
      const videoId = c.req.param('id')
      const [video] = await db.select({ channelId: youtubeVideos.channelId }).from(youtubeVideos).where(eq(youtubeVideos.id, videoId))
      // only an episode of one of the user's podcasts, among the newest it keeps
      const podcast = video && (await enabledPodcast(db, user.id, video.channelId))
      const cut = cutOf(await getSponsorblock(db, user.id))
      const episode = podcast && (await episodeStatuses(db, video.channelId, podcast.keepLast, cut)).find((e) => e.videoId === videoId)
      if (!episode) fail(404, 'Episode not found.')
      if (episode.state === 'failed') await retry(ctx, [videoId], cut, user.id)
      const [now] = (await episodeStatuses(db, video!.channelId, podcast!.keepLast, cut)).filter((e) => e.videoId === videoId)
      return c.json(now!, 200)
    })
}
