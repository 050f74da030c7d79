import type { AppContext } from '../../context.ts'
import { fail } from '../../lib/errors.ts'
import { cutOf, enabledPodcastCuts } from './episode-queries.ts'
import { type EpisodeRequest, requestEpisode } from './episodes.ts'
import { episodeSummary } from './episode-status.ts'
import { enabledPodcasts, isFollowed, newestVideos, podcastOf, savePodcast, secretOf, userFeedEpisodes } from './podcast-queries.ts'
import { DEFAULT_KEEP_LAST } from './schema.ts'
import { getSponsorblock } from './settings.ts'

/**
 * Followed channels as private podcasts (docs/decisions/193): the per-channel switch with
 * keepLast, the episodes each podcast should have, and the feed addresses under a per-user
 * secret. SQL in podcast-queries.ts; the feeds themselves in feed-routes.ts and feed-xml.ts.
 */

/**
 * Queues the audio of every episode the podcast should have and does not (paced like every
 * fetch). With `retryFailed` false (the schedule), a failed fetch is left alone: the user's
 * switch or listen mode starts it again.
 */
export async function fetchEpisodes(ctx: AppContext, channelId: string, keepLast: number, cut: string, opts: EpisodeRequest) {
  for (const v of await newestVideos(ctx.db, channelId, keepLast)) await requestEpisode(ctx, v.id, cut, opts)
}

/**
 * Every enabled podcast's channel (once per set of skip categories, with the largest keepLast):
 * new uploads become episodes; episodes made while SponsorBlock was down are cut now.
 */
export async function fetchAllEpisodes(ctx: AppContext, channelId?: string) {
  const wanted = new Map<string, { channelId: string; cut: string; keepLast: number; userId: string }>()
  for (const p of await enabledPodcastCuts(ctx.db, { channelId })) {
    const key = `${p.channelId}|${p.cut}`
    if ((wanted.get(key)?.keepLast ?? 0) < p.keepLast) wanted.set(key, p)
  }
  for (const w of wanted.values()) await fetchEpisodes(ctx, w.channelId, w.keepLast, w.cut, { owner: w.userId, retryFailed: false, remakeUncut: true })
}

/** The user's episodes with their skip categories now (after a change of them). */
export async function fetchUserEpisodes(ctx: AppContext, userId: string) {
  const cut = cutOf(await getSponsorblock(ctx.db, userId))
  for (const p of await enabledPodcasts(ctx.db, userId)) await fetchEpisodes(ctx, p.channelId, p.keepLast, cut, { owner: userId })
}

/** The address the feeds are under: PUBLIC_URL, else the request's origin. */
export const appBase = (ctx: AppContext, reqUrl: string) => (ctx.env.PUBLIC_URL ?? new URL(reqUrl).origin).replace(/\/$/, '')

export async function podcastsJson(ctx: AppContext, userId: string, reqUrl: string) {
  const root = `${appBase(ctx, reqUrl)}/feeds/${await secretOf(ctx.db, userId)}`
  const feeds = []
  for (const p of await enabledPodcasts(ctx.db, userId)) {
    feeds.push({
      channelId: p.channelId,
      title: p.title,
      url: `${root}/channel/${p.channelId}.xml`,
      episodes: (await userFeedEpisodes(ctx.db, userId, p.channelId, p.keepLast)).length,
      keepLast: p.keepLast,
      ...(await episodeSummary(ctx.db, userId, p.channelId, p.keepLast)),
    })
  }
  return { feeds, allUrl: `${root}/all.xml`, opmlUrl: `${root}/feeds.opml` }
}

/**
 * PODCAST_MAX_EPISODES caps the sum of keepLast over one person's enabled podcasts (docs/decisions/220):
 * each episode is a fetch through the shared YouTube gate and a file on the server's disk.
 */
async function checkEpisodeCap(ctx: AppContext, userId: string, channelId: string, keepLast: number) {
  const others = (await enabledPodcasts(ctx.db, userId)).filter((p) => p.channelId !== channelId).reduce((sum, p) => sum + p.keepLast, 0)
  const max = ctx.env.PODCAST_MAX_EPISODES
  if (others + keepLast > max) {
    const room = Math.max(0, max - others)
    fail(
      422,
      room > 0
        ? `keepLast: Your podcasts may keep at most ${max} episodes in all; ${others} are taken by your other podcasts, so this one may keep at most ${room}.`
        : `keepLast: Your podcasts may keep at most ${max} episodes in all, and your other podcasts take them all. Lower "Keep the last" on another podcast first.`,
    )
  }
}

export async function setPodcast(ctx: AppContext, userId: string, channelId: string, enabled: boolean, keepLast: number | undefined) {
  if (!(await isFollowed(ctx.db, userId, channelId))) fail(404, 'Subscription not found.')
  const current = await podcastOf(ctx.db, userId, channelId)
  const keep = keepLast ?? current?.keepLast ?? DEFAULT_KEEP_LAST
  if (enabled) await checkEpisodeCap(ctx, userId, channelId, keep)
  await savePodcast(ctx.db, userId, channelId, enabled, keep)
  if (enabled) await fetchEpisodes(ctx, channelId, keep, cutOf(await getSponsorblock(ctx.db, userId)), { owner: userId })
  return { enabled, keepLast: keep }
}
