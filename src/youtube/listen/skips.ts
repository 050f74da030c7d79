import { and, eq } from 'drizzle-orm'
import type { Tx } from '../../db/client.ts'
import { youtubePodcastSkips } from './tables.ts'

/** Episodes a person took out of their feed (from a Subsonic player): the feed leaves them out. */
export async function skipEpisode(db: Tx, userId: string, videoId: string, skipped: boolean) {
  if (skipped) await db.insert(youtubePodcastSkips).values({ userId, videoId }).onConflictDoNothing()
  else await db.delete(youtubePodcastSkips).where(and(eq(youtubePodcastSkips.userId, userId), eq(youtubePodcastSkips.videoId, videoId)))
}

export async function skippedVideos(db: Tx, userId: string): Promise<Set<string>> {
  const rows = await db.select({ videoId: youtubePodcastSkips.videoId }).from(youtubePodcastSkips).where(eq(youtubePodcastSkips.userId, userId))
  return new Set(rows.map((r) => r.videoId))
}
