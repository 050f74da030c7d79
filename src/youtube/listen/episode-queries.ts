import { join } from 'node:path'
import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import type { AppContext } from '../../context.ts'
import type { Tx } from '../../db/client.ts'
import { youtubeSubscriptions, youtubeVideos } from '../tables.ts'
import { SPONSORBLOCK_CATEGORIES } from './schema.ts'
import { getSponsorblock, type SponsorblockSettings } from './settings.ts'
import { youtubePodcastEpisodes, youtubePodcasts } from './tables.ts'

/**
 * Podcast episodes' rows and the feeds' selection (docs/decisions/206-208): plain queries shared
 * by the episode job (episodes.ts), the audio cache (audio.ts) and the feeds (podcasts.ts).
 * One file per video and set of skip categories (`cut`) under DATA_DIR/audio/podcast.
 */
export type EpisodeRow = typeof youtubePodcastEpisodes.$inferSelect

export const episodeDir = (ctx: AppContext) => join(ctx.env.DATA_DIR, 'audio', 'podcast')

/** The user's `skip` categories as the episode key: sorted, comma-joined ('' cuts nothing). */
export const cutOf = (settings: SponsorblockSettings) =>
  SPONSORBLOCK_CATEGORIES.filter((c) => settings[c] === 'skip')
    .sort()
    .join(',')

export const cutTag = (cut: string) => (cut ? new Bun.CryptoHasher('sha256').update(cut).digest('hex').slice(0, 10) : 'whole')
export const episodeFile = (videoId: string, cut: string) => `${videoId}.${cutTag(cut)}.mp3`
export async function getEpisode(db: Tx, videoId: string, cut: string): Promise<EpisodeRow | undefined> {
  const [row] = await db
    .select()
    .from(youtubePodcastEpisodes)
    .where(and(eq(youtubePodcastEpisodes.videoId, videoId), eq(youtubePodcastEpisodes.cut, cut)))
  return row
}

/** The video's audio failed: its waiting episodes fail with the same sentence (called by audio.ts). */
export async function audioFailedForEpisodes(ctx: AppContext, videoId: string, sentence: string) {
  await ctx.db
    .update(youtubePodcastEpisodes)
    .set({ state: 'failed', error: sentence, failedAt: sql`now()` })
    .where(and(eq(youtubePodcastEpisodes.videoId, videoId), eq(youtubePodcastEpisodes.state, 'fetching')))
}

/**
 * A feed's episodes: the newest `keepLast` ready episodes (with the user's cut) of the
 * channel's plain videos. An older one stays until a newer one is ready, then leaves.
 */
export async function feedEpisodes(db: Tx, channelId: string, keepLast: number, cut: string) {
  return db
    .select({ video: youtubeVideos, episode: youtubePodcastEpisodes })
    .from(youtubePodcastEpisodes)
    .innerJoin(youtubeVideos, eq(youtubeVideos.id, youtubePodcastEpisodes.videoId))
    .where(
      and(
        eq(youtubeVideos.channelId, channelId),
        eq(youtubeVideos.kind, 'video'),
        eq(youtubePodcastEpisodes.cut, cut),
        eq(youtubePodcastEpisodes.state, 'ready'),
      ),
    )
    .orderBy(desc(youtubeVideos.publishedAt), desc(youtubeVideos.id))
    .limit(keepLast)
}

/** Every enabled podcast of a followed channel, with its owner's cut. */
export async function enabledPodcastCuts(db: Tx, channelId?: string) {
  const rows = await db
    .select({ userId: youtubePodcasts.userId, channelId: youtubePodcasts.channelId, keepLast: youtubePodcasts.keepLast })
    .from(youtubePodcasts)
    .innerJoin(
      youtubeSubscriptions,
      and(eq(youtubeSubscriptions.userId, youtubePodcasts.userId), eq(youtubeSubscriptions.channelId, youtubePodcasts.channelId), isNull(youtubeSubscriptions.deletedAt)),
    )
    .where(and(eq(youtubePodcasts.enabled, true), channelId ? eq(youtubePodcasts.channelId, channelId) : undefined))
  const cuts = new Map<string, string>()
  const out = []
  for (const r of rows) {
    if (!cuts.has(r.userId)) cuts.set(r.userId, cutOf(await getSponsorblock(db, r.userId)))
    out.push({ ...r, cut: cuts.get(r.userId)! })
  }
  return out
}

/** `videoId|cut` of every episode in some feed now: the cache keeps them. */
export async function episodesInFeeds(db: Tx): Promise<Set<string>> {
  const keys = new Set<string>()
  const seen = new Map<string, number>()
  for (const p of await enabledPodcastCuts(db)) {
    // one query per channel and cut, with the largest keepLast
    const key = `${p.channelId}|${p.cut}`
    if ((seen.get(key) ?? 0) >= p.keepLast) continue
    seen.set(key, p.keepLast)
    for (const e of await feedEpisodes(db, p.channelId, p.keepLast, p.cut)) keys.add(`${e.episode.videoId}|${e.episode.cut}`)
  }
  return keys
}
