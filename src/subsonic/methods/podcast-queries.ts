import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm'
import type { Tx } from '../../db/client.ts'
import { youtubeChannels, youtubePlaybackProgress, youtubeSubscriptions, youtubeVideos } from '../../youtube/tables.ts'
import { youtubePodcastEpisodes, youtubePodcasts, youtubePodcastSkips as subsonicSkippedEpisodes } from '../../youtube/listen/tables.ts'
import { subsonicBookmarks } from '../tables.ts'

/** The SQL of Subsonic podcasts and bookmarks, over the podcast feeds' tables (src/youtube/listen/). */

export type PodcastRow = Awaited<ReturnType<typeof podcastsOf>>[number]
export type EpisodeRow = Awaited<ReturnType<typeof episodesOf>>[number]

/** The user's enabled podcasts of followed channels (`channelId` narrows to one). */
export async function podcastsOf(db: Tx, userId: string, channelId?: string) {
  return db
    .select({ channelId: youtubePodcasts.channelId, keepLast: youtubePodcasts.keepLast, title: youtubeChannels.title, thumbnail: youtubeChannels.thumbnail })
    .from(youtubePodcasts)
    .innerJoin(youtubeChannels, eq(youtubeChannels.id, youtubePodcasts.channelId))
    .innerJoin(
      youtubeSubscriptions,
      and(eq(youtubeSubscriptions.userId, youtubePodcasts.userId), eq(youtubeSubscriptions.channelId, youtubePodcasts.channelId), isNull(youtubeSubscriptions.deletedAt)),
    )
    .where(and(eq(youtubePodcasts.userId, userId), eq(youtubePodcasts.enabled, true), channelId ? eq(youtubePodcasts.channelId, channelId) : undefined))
    .orderBy(youtubeChannels.title, youtubeChannels.id)
}

/**
 * A podcast's episodes: the channel's newest `keepLast` plain videos (or the one `videoId`),
 * each with its file for the user's cut (if any) and whether the user took it out.
 */
export async function episodesOf(db: Tx, userId: string, cut: string, channelId: string, keepLast: number, videoId?: string) {
  return db
    .select({
      video: youtubeVideos,
      state: youtubePodcastEpisodes.state,
      file: youtubePodcastEpisodes.file,
      size: youtubePodcastEpisodes.size,
      duration: youtubePodcastEpisodes.duration,
      spans: youtubePodcastEpisodes.spans,
      skipped: sql<boolean>`${subsonicSkippedEpisodes.videoId} is not null`,
    })
    .from(youtubeVideos)
    .leftJoin(youtubePodcastEpisodes, and(eq(youtubePodcastEpisodes.videoId, youtubeVideos.id), eq(youtubePodcastEpisodes.cut, cut)))
    .leftJoin(subsonicSkippedEpisodes, and(eq(subsonicSkippedEpisodes.videoId, youtubeVideos.id), eq(subsonicSkippedEpisodes.userId, userId)))
    .where(and(eq(youtubeVideos.channelId, channelId), eq(youtubeVideos.kind, 'video'), videoId ? eq(youtubeVideos.id, videoId) : undefined))
    .orderBy(desc(youtubeVideos.publishedAt), desc(youtubeVideos.id))
    .limit(keepLast)
}

export async function videoChannel(db: Tx, videoId: string): Promise<string | null> {
  const [v] = await db.select({ channelId: youtubeVideos.channelId }).from(youtubeVideos).where(eq(youtubeVideos.id, videoId))
  return v?.channelId ?? null
}

// ---- bookmarks

export const songBookmarks = (db: Tx, userId: string) =>
  db.select().from(subsonicBookmarks).where(and(eq(subsonicBookmarks.userId, userId), sql`${subsonicBookmarks.itemId} like 'tr-%'`)).orderBy(desc(subsonicBookmarks.changedAt))

export async function bookmarkComments(db: Tx, userId: string, itemIds: string[]) {
  if (!itemIds.length) return new Map<string, typeof subsonicBookmarks.$inferSelect>()
  const rows = await db
    .select()
    .from(subsonicBookmarks)
    .where(and(eq(subsonicBookmarks.userId, userId), inArray(subsonicBookmarks.itemId, itemIds)))
  return new Map(rows.map((r) => [r.itemId, r]))
}

export async function saveBookmark(db: Tx, userId: string, itemId: string, position: number, comment: string | null) {
  await db
    .insert(subsonicBookmarks)
    .values({ userId, itemId, position, comment })
    .onConflictDoUpdate({ target: [subsonicBookmarks.userId, subsonicBookmarks.itemId], set: { position, comment, changedAt: sql`now()` } })
}

export async function deleteBookmarkRow(db: Tx, userId: string, itemId: string): Promise<boolean> {
  const rows = await db
    .delete(subsonicBookmarks)
    .where(and(eq(subsonicBookmarks.userId, userId), eq(subsonicBookmarks.itemId, itemId)))
    .returning({ itemId: subsonicBookmarks.itemId })
  return rows.length > 0
}

/** The web player's positions in the user's videos of these channels (an episode's bookmark). */
export async function progressIn(db: Tx, userId: string, channelIds: string[]) {
  if (!channelIds.length) return []
  return db
    .select({ videoId: youtubePlaybackProgress.videoId, playedSeconds: youtubePlaybackProgress.playedSeconds, updatedAt: youtubePlaybackProgress.updatedAt, channelId: youtubeVideos.channelId })
    .from(youtubePlaybackProgress)
    .innerJoin(youtubeVideos, eq(youtubeVideos.id, youtubePlaybackProgress.videoId))
    .where(and(eq(youtubePlaybackProgress.userId, userId), inArray(youtubeVideos.channelId, channelIds), sql`${youtubePlaybackProgress.playedSeconds} > 0`))
    .orderBy(desc(youtubePlaybackProgress.updatedAt))
}

export async function deleteProgress(db: Tx, userId: string, videoId: string): Promise<boolean> {
  const rows = await db
    .delete(youtubePlaybackProgress)
    .where(and(eq(youtubePlaybackProgress.userId, userId), eq(youtubePlaybackProgress.videoId, videoId)))
    .returning({ v: youtubePlaybackProgress.videoId })
  return rows.length > 0
}
