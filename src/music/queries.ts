import { and, count, desc, eq, isNull, lt, or } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { ERROR_KINDS, failureSentence, type ErrorKind } from '../tools/failure.ts'
import type { MusicJob } from './schema.ts'
import { parseLyricsText } from '../subsonic/lyrics.ts'
import { musicJobs, type MusicJobRow } from './tables.ts'

export type NewMusicJob = typeof musicJobs.$inferInsert

export async function insertMusicJob(db: Db, job: NewMusicJob): Promise<MusicJobRow> {
  const [row] = await db.insert(musicJobs).values(job).returning()
  return row!
}

/** The job if `userId` owns it (another user's job is as good as missing). */
export async function getOwnMusicJob(db: Db, userId: string, id: string): Promise<MusicJobRow | null> {
  if (!isUuid(id)) return null
  const [row] = await db.select().from(musicJobs).where(and(eq(musicJobs.id, id), eq(musicJobs.userId, userId)))
  return row ?? null
}

export async function getMusicJob(db: Db, id: string): Promise<MusicJobRow | null> {
  const [row] = await db.select().from(musicJobs).where(eq(musicJobs.id, id))
  return row ?? null
}

/** One page of the user's jobs, newest first. */
export async function listMusicJobs(db: Db, userId: string, page: number, perPage: number) {
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(musicJobs)
      .where(eq(musicJobs.userId, userId))
      .orderBy(desc(musicJobs.createdAt), desc(musicJobs.id))
      .limit(perPage)
      .offset((page - 1) * perPage),
    db.select({ n: count() }).from(musicJobs).where(eq(musicJobs.userId, userId)),
  ])
  return { rows, totalPages: Math.ceil((total?.n ?? 0) / perPage) }
}

export async function deleteMusicJob(db: Db, id: string) {
  await db.delete(musicJobs).where(eq(musicJobs.id, id))
}

const unfinished = and(isNull(musicJobs.completed), isNull(musicJobs.failed))

export async function updateMusicJob(db: Db, id: string, values: Partial<NewMusicJob>) {
  await db.update(musicJobs).set(values).where(eq(musicJobs.id, id))
}

/** Sets progress while the job is still running (never after it ended). */
export async function setMusicJobProgress(db: Db, id: string, progress: number) {
  await db.update(musicJobs).set({ progress }).where(and(eq(musicJobs.id, id), unfinished))
}

/** Records a running job's success; null when it had already ended or is gone. */
export async function completeMusicJob(db: Db, id: string, values: Partial<NewMusicJob>): Promise<MusicJobRow | null> {
  const [row] = await db
    .update(musicJobs)
    .set({ ...values, progress: 100, completed: new Date(), waitingReason: null, waitingUntil: null })
    .where(and(eq(musicJobs.id, id), unfinished))
    .returning()
  return row ?? null
}

/** Marks a running job failed; null when it had already ended or is gone. */
export async function failMusicJob(db: Db, id: string, error: string, errorKind: ErrorKind): Promise<MusicJobRow | null> {
  const [row] = await db
    .update(musicJobs)
    .set({ failed: new Date(), error: error.slice(0, 2000), errorKind, waitingReason: null, waitingUntil: null })
    .where(and(eq(musicJobs.id, id), unfinished))
    .returning()
  return row ?? null
}

export async function listUnfinishedMusicJobs(db: Db): Promise<Pick<MusicJobRow, 'id' | 'userId'>[]> {
  return db.select({ id: musicJobs.id, userId: musicJobs.userId }).from(musicJobs).where(unfinished)
}

/** Jobs of `userId` waiting or running. */
export async function countUnfinishedMusicJobs(db: Db, userId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(musicJobs).where(and(eq(musicJobs.userId, userId), unfinished))
  return row?.n ?? 0
}

/** Finished (completed or failed) before `before`. */
export async function listExpiredMusicJobs(db: Db, before: Date, limit = 500) {
  return db
    .select({ id: musicJobs.id, userId: musicJobs.userId })
    .from(musicJobs)
    .where(or(lt(musicJobs.completed, before), lt(musicJobs.failed, before)))
    .limit(limit)
}

const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)

const baseName = (file: string) => file.slice(file.lastIndexOf('/') + 1)

/** The API shape (docs/api.md#music-job-shape): URLs point at this server's authenticated routes. */
export function toMusicJob(row: MusicJobRow): MusicJob {
  const base = `/api/music/jobs/${row.id}`
  return {
    id: row.id,
    videoUrl: row.videoUrl,
    originalFilename: row.originalFilename,
    filenameUrl: row.uploadFile ? `${base}/upload` : null,
    artworkUrl: row.artworkFile ? `${base}/artwork` : row.artworkUrl,
    title: row.title,
    artist: row.artist,
    album: row.album,
    grouping: row.grouping,
    completed: row.completed?.toISOString() ?? null,
    failed: row.failed?.toISOString() ?? null,
    downloadUrl: row.outputFile ? `${base}/download` : null,
    downloadFilename: row.outputFile ? baseName(row.outputFile) : null,
    createdAt: row.createdAt.toISOString(),
    progress: row.progress,
    webdav: row.webdav ?? null,
    trackNumber: row.trackNumber,
    year: row.year,
    tracks: row.tracks.map((t) => ({
      title: t.title,
      trackNumber: t.trackNumber,
      downloadUrl: `${base}/tracks/${t.trackNumber}/download`,
      downloadFilename: baseName(t.file),
    })),
    notice: row.notice,
    lyrics: row.lyrics && row.lyricsSource ? { synced: parseLyricsText(row.lyrics).synced, source: row.lyricsSource } : null,
    waiting: jobWaiting(row),
    ...jobError(row),
  }
}

/** What a waiting job's row says (docs/decisions/146-waiting-jobs-and-lookups.md). */
export const WAITING_SENTENCES = {
  turn: 'Waiting for its turn: downloads from YouTube start a few seconds apart.',
  hour: 'Waiting for its turn: the server has reached its hourly limit of downloads from YouTube.',
  pause: 'Waiting: YouTube asked this server to confirm it is not a bot, so downloads from YouTube are paused for a while.',
} as const

function jobWaiting(row: MusicJobRow): MusicJob['waiting'] {
  if (!row.waitingReason || row.completed || row.failed) return null
  return { reason: row.waitingReason, until: row.waitingUntil?.toISOString() ?? null, message: WAITING_SENTENCES[row.waitingReason] }
}

/** `error`/`errorKind` of the API: the sentence for the kind, never the tool's own words. */
function jobError(row: MusicJobRow): Pick<MusicJob, 'error' | 'errorKind'> {
  if (!row.failed) return { error: null, errorKind: null }
  // a job failed before kinds were recorded counts as internal
  const kind = (ERROR_KINDS as readonly string[]).includes(row.errorKind ?? '') ? (row.errorKind as ErrorKind) : 'internal'
  // the API's list of kinds is fixed (docs/api.md): a full disk is told by its sentence, under `internal` (decision 166)
  return { error: failureSentence(kind, row.error), errorKind: kind === 'disk_full' ? 'internal' : kind }
}
