import { and, eq, inArray, isNull, sql } from 'drizzle-orm'
import type { Tx } from '../../db/client.ts'
import { youtubeSubscriptions, youtubeVideos, type VideoKind } from '../tables.ts'
import { muteMatcher } from './mute-match.ts'
import { youtubeFeedFilters, youtubeMutedVideos } from './tables.ts'

// The muted videos table kept in step with the words, the follows and the stored videos
// (docs/decisions/251). Titles never change once stored, so these three moments cover it.

type Candidate = { id: string; title: string; channelId: string; categoryId: number; kind: VideoKind }

export async function getMutedWords(db: Tx, userId: string): Promise<string[]> {
  const [row] = await db.select({ words: youtubeFeedFilters.mutedWords }).from(youtubeFeedFilters).where(eq(youtubeFeedFilters.userId, userId))
  return row?.words ?? []
}

/** Whether the user has any muted word (the feed adds its filter only then). */
export async function hasMutedWords(db: Tx, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ n: sql<number>`jsonb_array_length(${youtubeFeedFilters.mutedWords})`.mapWith(Number) })
    .from(youtubeFeedFilters)
    .where(eq(youtubeFeedFilters.userId, userId))
  return (row?.n ?? 0) > 0
}

const candidateColumns = {
  id: youtubeVideos.id,
  title: youtubeVideos.title,
  channelId: youtubeVideos.channelId,
  categoryId: youtubeVideos.categoryId,
  kind: youtubeVideos.kind,
}

async function insertMutes(db: Tx, userId: string, videos: Candidate[]) {
  const rows = videos.map((v) => ({ userId, videoId: v.id, channelId: v.channelId, categoryId: v.categoryId, kind: v.kind }))
  for (let i = 0; i < rows.length; i += 500) await db.insert(youtubeMutedVideos).values(rows.slice(i, i + 500)).onConflictDoNothing()
}

/** The videos of the user's followed channels (or of `channelId` only). */
function followedVideos(db: Tx, userId: string, channelId?: string) {
  const s = youtubeSubscriptions
  return db
    .select(candidateColumns)
    .from(youtubeVideos)
    .innerJoin(s, and(eq(s.channelId, youtubeVideos.channelId), eq(s.userId, userId), isNull(s.deletedAt)))
    .where(channelId ? eq(youtubeVideos.channelId, channelId) : undefined)
}

/** Replaces the muted words and works out again which videos they hide. */
export async function saveMutedWords(db: Tx, userId: string, words: string[]): Promise<string[]> {
  await db.transaction(async (tx) => {
    await tx
      .insert(youtubeFeedFilters)
      .values({ userId, mutedWords: words })
      .onConflictDoUpdate({ target: youtubeFeedFilters.userId, set: { mutedWords: words, updatedAt: sql`now()` } })
    await tx.delete(youtubeMutedVideos).where(eq(youtubeMutedVideos.userId, userId))
    if (!words.length) return
    const m = muteMatcher(words)
    await insertMutes(tx, userId, (await followedVideos(tx, userId)).filter((v) => m.mutes(v.title)))
  })
  return words
}

/** After a follow: the channel's videos the user's words hide. */
export async function muteChannelFor(db: Tx, userId: string, channelId: string) {
  const words = await getMutedWords(db, userId)
  if (!words.length) return
  const m = muteMatcher(words)
  await insertMutes(db, userId, (await followedVideos(db, userId, channelId)).filter((v) => m.mutes(v.title)))
}

/** After videos are stored: each follower with muted words gets those it hides. */
export async function muteNewVideos(db: Tx, videos: Candidate[]) {
  if (!videos.length) return
  const channels = [...new Set(videos.map((v) => v.channelId))]
  const s = youtubeSubscriptions
  const f = youtubeFeedFilters
  const followers = await db
    .select({ userId: f.userId, words: f.mutedWords, channelId: s.channelId })
    .from(f)
    .innerJoin(s, and(eq(s.userId, f.userId), isNull(s.deletedAt), inArray(s.channelId, channels)))
    .where(sql`jsonb_array_length(${f.mutedWords}) > 0`)
  const byUser = new Map<string, { words: string[]; channels: Set<string> }>()
  for (const r of followers) {
    const entry = byUser.get(r.userId) ?? { words: r.words, channels: new Set() }
    entry.channels.add(r.channelId)
    byUser.set(r.userId, entry)
  }
  for (const [userId, { words, channels: theirs }] of byUser) {
    const m = muteMatcher(words)
    await insertMutes(db, userId, videos.filter((v) => theirs.has(v.channelId) && m.mutes(v.title)))
  }
}

/** How many videos of the user's feed each word hides (a video with two words counts for both). */
export async function mutedCounts(db: Tx, userId: string, words: string[]): Promise<number[]> {
  const counts = words.map(() => 0)
  if (!words.length) return counts
  const s = youtubeSubscriptions
  const rows = await db
    .select({ title: youtubeVideos.title })
    .from(youtubeMutedVideos)
    .innerJoin(youtubeVideos, eq(youtubeVideos.id, youtubeMutedVideos.videoId))
    .innerJoin(s, and(eq(s.channelId, youtubeMutedVideos.channelId), eq(s.userId, userId), isNull(s.deletedAt)))
    .where(eq(youtubeMutedVideos.userId, userId))
  const m = muteMatcher(words)
  for (const r of rows) for (const i of m.hits(r.title)) counts[i]!++
  return counts
}
