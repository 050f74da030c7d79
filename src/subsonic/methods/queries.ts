import { and, asc, eq, sql } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { rowsOf } from '../../db/rows.ts'
import { musicJobs } from '../../music/tables.ts'
import { subsonicPlaylistEntries, subsonicPlaylists, subsonicPlayQueues, subsonicSongs, subsonicStars } from '../tables.ts'

/** The SQL of the Subsonic methods besides the library's own (library.ts): playlists, stars, plays, the play queue. */

export type PlaylistRow = typeof subsonicPlaylists.$inferSelect
export interface SongKey {
  jobId: string
  track: number
}

export const inJobs = (jobIds: string[]) => sql`job_id in (${sql.join([...new Set(jobIds)].map((j) => sql`${j}`), sql`, `)})`

// ---- playlists

export async function playlistOf(db: Db, userId: string, id: string): Promise<PlaylistRow | undefined> {
  const [row] = await db
    .select()
    .from(subsonicPlaylists)
    .where(and(eq(subsonicPlaylists.id, id), eq(subsonicPlaylists.userId, userId)))
  return row
}

export const playlistsOf = (db: Db, userId: string) =>
  db.select().from(subsonicPlaylists).where(eq(subsonicPlaylists.userId, userId)).orderBy(asc(subsonicPlaylists.createdAt))

export const playlistEntries = (db: Db, id: string) =>
  db
    .select({ jobId: subsonicPlaylistEntries.jobId, track: subsonicPlaylistEntries.track, position: subsonicPlaylistEntries.position })
    .from(subsonicPlaylistEntries)
    .where(eq(subsonicPlaylistEntries.playlistId, id))
    .orderBy(asc(subsonicPlaylistEntries.position))

export async function insertPlaylist(db: Db, userId: string, name: string): Promise<PlaylistRow> {
  const [row] = await db.insert(subsonicPlaylists).values({ userId, name }).returning()
  return row!
}

export async function updatePlaylistRow(db: Db, id: string, set: Partial<Pick<PlaylistRow, 'name' | 'comment' | 'public' | 'changedAt'>>) {
  await db.update(subsonicPlaylists).set(set).where(eq(subsonicPlaylists.id, id))
}

export async function deletePlaylistRow(db: Db, id: string) {
  await db.delete(subsonicPlaylists).where(eq(subsonicPlaylists.id, id))
}

/** Replaces a playlist's entries, in order, and marks it changed. */
export async function writeEntries(db: Db, id: string, entries: SongKey[]) {
  await db.transaction(async (tx) => {
    await tx.delete(subsonicPlaylistEntries).where(eq(subsonicPlaylistEntries.playlistId, id))
    if (entries.length)
      await tx.insert(subsonicPlaylistEntries).values(entries.map((e, position) => ({ playlistId: id, position, jobId: e.jobId, track: e.track })))
    await tx.update(subsonicPlaylists).set({ changedAt: new Date() }).where(eq(subsonicPlaylists.id, id))
  })
}

// ---- stars and plays

export async function starSong(db: Db, userId: string, s: SongKey, starred: Date | null) {
  await db
    .insert(subsonicSongs)
    .values({ jobId: s.jobId, track: s.track, userId, starred })
    .onConflictDoUpdate({ target: [subsonicSongs.jobId, subsonicSongs.track], set: { starred } })
}

/** Stars (or unstars) an album or artist by its lower-cased id. */
export async function starItem(db: Db, userId: string, itemId: string, starred: Date | null) {
  if (starred) await db.insert(subsonicStars).values({ userId, itemId, starred }).onConflictDoNothing()
  else await db.delete(subsonicStars).where(and(eq(subsonicStars.userId, userId), eq(subsonicStars.itemId, itemId)))
}

export async function countPlay(db: Db, userId: string, s: SongKey, at: Date) {
  await db
    .insert(subsonicSongs)
    .values({ jobId: s.jobId, track: s.track, userId, playCount: 1, played: at })
    .onConflictDoUpdate({
      target: [subsonicSongs.jobId, subsonicSongs.track],
      set: { playCount: sql`${subsonicSongs.playCount} + 1`, played: sql`greatest(${subsonicSongs.played}, ${at.toISOString()}::timestamptz)` },
    })
}

// ---- the play queue

export async function playQueueOf(db: Db, userId: string) {
  const [row] = await db.select().from(subsonicPlayQueues).where(eq(subsonicPlayQueues.userId, userId))
  return row
}

export async function savePlayQueueRow(
  db: Db,
  userId: string,
  values: { songIds: string[]; current: string; currentIndex: number; position: number; changedAt: Date; changedBy: string } | null,
) {
  if (!values) await db.delete(subsonicPlayQueues).where(eq(subsonicPlayQueues.userId, userId))
  else await db.insert(subsonicPlayQueues).values({ userId, ...values }).onConflictDoUpdate({ target: subsonicPlayQueues.userId, set: values })
}

// ---- covers

export async function coverJob(db: Db, userId: string, jobId: string) {
  const [job] = await db
    .select({ artworkFile: musicJobs.artworkFile, completed: musicJobs.completed })
    .from(musicJobs)
    .where(and(eq(musicJobs.id, jobId), eq(musicJobs.userId, userId)))
  return job
}

/** How many songs the user has (a split job counts each track), as the library lists them. */
export async function songCount(db: Db, userId: string): Promise<number> {
  const [row] = rowsOf<{ n: number }>(
    await db.execute(sql`select count(*)::int as n from music_jobs j left join lateral jsonb_array_elements(j.tracks) t(value) on true
      where j.user_id = ${userId} and j.completed is not null and j.output_file is not null`),
  )
  return row?.n ?? 0
}
