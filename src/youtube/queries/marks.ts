import { and, eq, sql } from 'drizzle-orm'
import type { Tx } from '../../db/client.ts'
import {
  youtubeLikes,
  youtubePlaybackProgress,
  youtubeQueueEntries,
  youtubeVideos,
  youtubeWatches,
} from '../tables.ts'

// A user's marks on videos (like, queue, watch) and playback progress.

export const marks = { like: youtubeLikes, queue: youtubeQueueEntries, watch: youtubeWatches } as const
export type MarkKind = keyof typeof marks

/** Idempotent: the first mark's time is kept. */
export async function addMark(db: Tx, kind: MarkKind, userId: string, videoId: string): Promise<void> {
  if (kind !== 'watch') {
    await db.insert(marks[kind]).values({ userId, videoId }).onConflictDoNothing()
    return
  }
  // a watch copies its video's channel, category and kind (the feed's filters: docs/decisions/130)
  const v = youtubeVideos
  await db
    .insert(youtubeWatches)
    .select(
      db
        .select({ userId: sql`${userId}::uuid`.as('user_id'), videoId: v.id, createdAt: sql`now()`.as('created_at'), channelId: v.channelId, categoryId: v.categoryId, kind: v.kind })
        .from(v)
        .where(eq(v.id, videoId)),
    )
    .onConflictDoNothing()
}

/** False when there was nothing to remove. */
export async function removeMark(db: Tx, kind: MarkKind, userId: string, videoId: string): Promise<boolean> {
  const table = marks[kind]
  const rows = await db
    .delete(table)
    .where(and(eq(table.userId, userId), eq(table.videoId, videoId)))
    .returning({ videoId: table.videoId })
  return rows.length > 0
}

export async function getProgress(db: Tx, userId: string, videoId: string) {
  const [row] = await db
    .select()
    .from(youtubePlaybackProgress)
    .where(and(eq(youtubePlaybackProgress.userId, userId), eq(youtubePlaybackProgress.videoId, videoId)))
  return row
}

export async function saveProgress(db: Tx, userId: string, videoId: string, playedSeconds: number, duration: number) {
  const [row] = await db
    .insert(youtubePlaybackProgress)
    .values({ userId, videoId, playedSeconds, duration })
    .onConflictDoUpdate({
      target: [youtubePlaybackProgress.userId, youtubePlaybackProgress.videoId],
      set: { playedSeconds, duration, updatedAt: sql`now()` },
    })
    .returning()
  return row!
}
