import { join } from 'node:path'
import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import type { AppContext } from '../../context.ts'
import type { Tx } from '../../db/client.ts'
import { users } from '../../auth/tables.ts'
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

/**
 * Every enabled podcast of a followed channel (or of `channelId` only), with its owner's cut. A
 * disabled owner's are left out (nothing is fetched for them) unless `withDisabled` (the cache
 * still keeps their episodes, so enabling the account again loses nothing).
 */
export async function enabledPodcastCuts(db: Tx, opts: { withDisabled?: boolean; channelId?: string } = {}) {
  const rows = await db
    .select({ userId: youtubePodcasts.userId, channelId: youtubePodcasts.channelId, keepLast: youtubePodcasts.keepLast })
    .from(youtubePodcasts)
    .innerJoin(
      youtubeSubscriptions,
      and(eq(youtubeSubscriptions.userId, youtubePodcasts.userId), eq(youtubeSubscriptions.channelId, youtubePodcasts.channelId), isNull(youtubeSubscriptions.deletedAt)),
    )
    .innerJoin(users, eq(users.id, youtubePodcasts.userId))
    .where(
      and(
        eq(youtubePodcasts.enabled, true),
        opts.withDisabled ? undefined : isNull(users.disabledAt),
        opts.channelId ? eq(youtubePodcasts.channelId, opts.channelId) : undefined,
      ),
    )
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
  for (const p of await enabledPodcastCuts(db, { withDisabled: true })) {
    // one query per channel and cut, with the largest keepLast
    const key = `${p.channelId}|${p.cut}`
    if ((seen.get(key) ?? 0) >= p.keepLast) continue
    seen.set(key, p.keepLast)
    for (const e of await feedEpisodes(db, p.channelId, p.keepLast, p.cut)) keys.add(`${e.episode.videoId}|${e.episode.cut}`)
  }
  return keys
}

/**
 * The bytes of the episodes in one person's feeds now (docs/decisions/220): part of the
 * per-person storage figure the keeping quota also counts. A file shared with others counts in
 * full for each person whose feed holds it.
 */
export async function personEpisodeBytes(db: Tx, userId: string): Promise<number> {
  const cut = cutOf(await getSponsorblock(db, userId))
  const podcasts = await db
    .select({ channelId: youtubePodcasts.channelId, keepLast: youtubePodcasts.keepLast })
    .from(youtubePodcasts)
    .innerJoin(
      youtubeSubscriptions,
      and(eq(youtubeSubscriptions.userId, youtubePodcasts.userId), eq(youtubeSubscriptions.channelId, youtubePodcasts.channelId), isNull(youtubeSubscriptions.deletedAt)),
    )
    .where(and(eq(youtubePodcasts.userId, userId), eq(youtubePodcasts.enabled, true)))
  let bytes = 0
  for (const p of podcasts) for (const { episode } of await feedEpisodes(db, p.channelId, p.keepLast, cut)) bytes += episode.size ?? 0
  return bytes
}

/**
 * Whether anyone still wants this episode: an owner who is not disabled, with the podcast of the
 * video's channel on (and followed), whose skip categories are `cut`. The episode job asks before
 * fetching anything (a disabled person's queued episodes are not fetched).
 */
export async function episodeWanted(db: Tx, videoId: string, cut: string): Promise<boolean> {
  const owners = await db
    .selectDistinct({ userId: youtubePodcasts.userId })
    .from(youtubePodcasts)
    .innerJoin(youtubeVideos, eq(youtubeVideos.channelId, youtubePodcasts.channelId))
    .innerJoin(
      youtubeSubscriptions,
      and(eq(youtubeSubscriptions.userId, youtubePodcasts.userId), eq(youtubeSubscriptions.channelId, youtubePodcasts.channelId), isNull(youtubeSubscriptions.deletedAt)),
    )
    .innerJoin(users, and(eq(users.id, youtubePodcasts.userId), isNull(users.disabledAt)))
    .where(and(eq(youtubeVideos.id, videoId), eq(youtubePodcasts.enabled, true)))
  for (const o of owners) if (cutOf(await getSponsorblock(db, o.userId)) === cut) return true
  return false
}
