import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm'
import type { Tx } from '../../db/client.ts'
import { fail } from '../../lib/errors.ts'
import type { ApiVideo } from '../client.ts'
import { fallbackCategoryName } from '../categories.ts'
import { muteNewVideos } from '../personal/mutes.ts'
import { youtubeMutedVideos } from '../personal/tables.ts'
import { youtubeChannelVideoCounts, youtubeVideoCategories, youtubeVideos, youtubeWatches, type VideoKind } from '../tables.ts'

// Storing videos and their categories.

/** Which of `ids` are already stored. */
export async function knownVideoIds(db: Tx, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await db.select({ id: youtubeVideos.id }).from(youtubeVideos).where(inArray(youtubeVideos.id, ids))
  return new Set(rows.map((r) => r.id))
}

/** Stores videos (and a name for any category not seen yet); existing ids are left alone. Returns the ids of the new ones. */
export async function insertVideos(db: Tx, videos: ApiVideo[]): Promise<string[]> {
  if (videos.length === 0) return []
  // category 0: none known (videos from a feed, without a key); it is never listed
  const categoryIds = [...new Set(videos.map((v) => v.categoryId))].filter((id) => id > 0)
  if (categoryIds.length) {
    await db
      .insert(youtubeVideoCategories)
      .values(categoryIds.map((id) => ({ id, name: fallbackCategoryName(id) })))
      .onConflictDoNothing()
  }
  const counts = new Map<string, { channelId: string; categoryId: number; kind: VideoKind; videos: number }>()
  const added: string[] = []
  const titles = new Map(videos.map((v) => [v.id, v.title]))
  const stored: Parameters<typeof muteNewVideos>[1] = []
  for (let i = 0; i < videos.length; i += 500) {
    const rows = await db
      .insert(youtubeVideos)
      .values(videos.slice(i, i + 500))
      .onConflictDoNothing()
      .returning({ id: youtubeVideos.id, channelId: youtubeVideos.channelId, categoryId: youtubeVideos.categoryId, kind: youtubeVideos.kind })
    for (const { id, ...r } of rows) {
      added.push(id)
      stored.push({ id, title: titles.get(id) ?? '', ...r })
      const key = `${r.channelId}/${r.categoryId}/${r.kind}`
      const entry = counts.get(key) ?? { ...r, videos: 0 }
      entry.videos++
      counts.set(key, entry)
    }
  }
  // only rows really inserted are counted, so a concurrent insert of the same ids cannot count twice
  if (counts.size) {
    await db
      .insert(youtubeChannelVideoCounts)
      .values([...counts.values()])
      .onConflictDoUpdate({
        target: [youtubeChannelVideoCounts.channelId, youtubeChannelVideoCounts.categoryId, youtubeChannelVideoCounts.kind],
        set: { videos: sql`${youtubeChannelVideoCounts.videos} + excluded.videos` },
      })
  }
  // followers' muted words, worked out once per new video (docs/decisions/251)
  await muteNewVideos(db, stored)
  return added
}

/** Streams published longer ago than this are not read again (a cancelled one, a 24/7 stream). */
export const STREAM_REREAD_DAYS = 30

/**
 * A channel's videos stored as `upcoming` or `live` and published in the last STREAM_REREAD_DAYS:
 * each refresh with a key reads them again (docs/decisions/120).
 */
export async function streamVideoIds(db: Tx, channelId: string): Promise<string[]> {
  const rows = await db
    .select({ id: youtubeVideos.id })
    .from(youtubeVideos)
    .where(
      and(
        eq(youtubeVideos.channelId, channelId),
        gt(youtubeVideos.publishedAt, sql`now() - make_interval(days => ${STREAM_REREAD_DAYS})`),
        inArray(youtubeVideos.kind, ['upcoming', 'live']),
      ),
    )
  return rows.map((r) => r.id)
}

/**
 * Writes the kind and duration of stored videos read again (a stream that went live or ended),
 * moving each changed kind between its rows of the counts table. Returns how many changed.
 */
export async function updateVideoKinds(db: Tx, videos: ApiVideo[]): Promise<number> {
  if (videos.length === 0) return 0
  const stored = await db
    .select({ id: youtubeVideos.id, channelId: youtubeVideos.channelId, categoryId: youtubeVideos.categoryId, kind: youtubeVideos.kind, duration: youtubeVideos.duration })
    .from(youtubeVideos)
    .where(
      inArray(
        youtubeVideos.id,
        videos.map((v) => v.id),
      ),
    )
  const before = new Map(stored.map((r) => [r.id, r]))
  let changed = 0
  for (const v of videos) {
    const old = before.get(v.id)
    if (!old || (old.kind === v.kind && old.duration === v.duration)) continue
    changed++
    await db.update(youtubeVideos).set({ kind: v.kind, duration: v.duration }).where(eq(youtubeVideos.id, v.id))
    if (old.kind === v.kind) continue
    // the video's watches carry its kind (hide_watched's count: docs/decisions/130)
    await db.update(youtubeWatches).set({ kind: v.kind }).where(eq(youtubeWatches.videoId, v.id))
    await db.update(youtubeMutedVideos).set({ kind: v.kind }).where(eq(youtubeMutedVideos.videoId, v.id))
    const key = (kind: VideoKind) =>
      and(eq(youtubeChannelVideoCounts.channelId, old.channelId), eq(youtubeChannelVideoCounts.categoryId, old.categoryId), eq(youtubeChannelVideoCounts.kind, kind))
    await db
      .update(youtubeChannelVideoCounts)
      .set({ videos: sql`${youtubeChannelVideoCounts.videos} - 1` })
      .where(key(old.kind))
    await db
      .insert(youtubeChannelVideoCounts)
      .values({ channelId: old.channelId, categoryId: old.categoryId, kind: v.kind, videos: 1 })
      .onConflictDoUpdate({
        target: [youtubeChannelVideoCounts.channelId, youtubeChannelVideoCounts.categoryId, youtubeChannelVideoCounts.kind],
        set: { videos: sql`${youtubeChannelVideoCounts.videos} + 1` },
      })
  }
  return changed
}

export async function upsertCategories(db: Tx, categories: { id: number; name: string; assignable: boolean }[]) {
  if (categories.length === 0) return
  await db
    .insert(youtubeVideoCategories)
    .values(categories)
    .onConflictDoUpdate({
      target: youtubeVideoCategories.id,
      set: { name: sql`excluded.name`, assignable: sql`excluded.assignable`, updatedAt: sql`now()` },
    })
}

export async function listCategories(db: Tx) {
  return db
    .select({ id: youtubeVideoCategories.id, name: youtubeVideoCategories.name })
    .from(youtubeVideoCategories)
    .orderBy(asc(youtubeVideoCategories.name), asc(youtubeVideoCategories.id))
}

export async function videoExists(db: Tx, id: string): Promise<boolean> {
  const [row] = await db.select({ id: youtubeVideos.id }).from(youtubeVideos).where(eq(youtubeVideos.id, id))
  return !!row
}

/** A YouTube video id's form (11 characters of the URL-safe alphabet). */
export const VIDEO_ID = /^[\w-]{11}$/

/** 404 `Youtube video not found.` unless `id` is a stored video: every /videos/{id} route's guard. */
export async function requireVideo(db: Tx, id: string): Promise<void> {
  if (!VIDEO_ID.test(id) || !(await videoExists(db, id))) fail(404, 'Youtube video not found.')
}
