import { stat } from 'node:fs/promises'
import { sql, type SQL } from 'drizzle-orm'
import { parseFile } from 'music-metadata'
import type { Db } from '../db/client.ts'
import { rowsOf } from '../db/rows.ts'
import { errorFields, log } from '../lib/logger.ts'
import { inside, jobDir } from '../music/files.ts'
import { subsonicSongs } from './tables.ts'

/**
 * The library, derived from the user's finished music jobs on every answer (no scan, no second
 * copy): a job is one song, a chapter split one song per track. What only the file knows
 * (size, duration, bit rate, ReplayGain) is read from the MP3 on first sight and kept in
 * subsonic_songs beside the user's plays and stars; it is read again when the job's file
 * changed (a tag edit renames it or forgets the facts: forgetSongFacts).
 */

export interface SongRow {
  job_id: string
  track: number
  title: string
  artist: string
  album: string
  genre: string | null
  track_number: number | null
  year: number | null
  has_art: boolean
  file: string
  created_ms: number
  album_key: string
  artist_key: string
  facts_file: string | null
  size: number | null
  duration: number | null
  bit_rate: number | null
  track_gain: number | null
  track_peak: number | null
  play_count: number
  played_ms: number | null
  starred_ms: number | null
}

export interface AlbumRow {
  album_key: string
  artist_key: string
  name: string
  artist: string
  song_count: number
  duration: number
  play_count: number
  created_ms: number
  year: number | null
  genre: string | null
  played_ms: number | null
  cover_job: string | null
  measured: number
  starred_ms: number | null
}

export interface ArtistRow {
  artist_key: string
  name: string
  album_count: number
  cover_job: string | null
  starred_ms: number | null
}

/** Every song of one user: the finished jobs, each split track on its own row. */
const songsCte = (userId: string) => sql`songs as (
  select j.id::text as job_id,
    coalesce((t.value->>'trackNumber')::int, 0) as track,
    coalesce(t.value->>'title', j.title) as title,
    j.artist, j.album, nullif(j.grouping, '') as genre,
    case when t.value is null then j.track_number else (t.value->>'trackNumber')::int end as track_number,
    j.year, j.artwork_file is not null as has_art,
    coalesce(t.value->>'file', j.output_file) as file,
    (extract(epoch from j.completed) * 1000)::float8 as created_ms,
    md5(j.user_id::text || chr(31) || j.artist || chr(31) || j.album) as album_key,
    md5(j.user_id::text || chr(31) || j.artist) as artist_key,
    s.file as facts_file, s.size::float8 as size, s.duration::float8 as duration, s.bit_rate, s.track_gain::float8 as track_gain,
    s.track_peak::float8 as track_peak, coalesce(s.play_count, 0) as play_count,
    (extract(epoch from s.played) * 1000)::float8 as played_ms, (extract(epoch from s.starred) * 1000)::float8 as starred_ms
  from music_jobs j
  left join lateral jsonb_array_elements(j.tracks) t(value) on true
  left join subsonic_songs s on s.job_id = j.id and s.track = coalesce((t.value->>'trackNumber')::int, 0)
  where j.user_id = ${userId} and j.completed is not null and j.output_file is not null
)`

const albumsCte = (userId: string) => sql`albums as (
  select a.*, (extract(epoch from st.starred) * 1000)::float8 as starred_ms from (
    select album_key, artist_key, min(album) as name, min(artist) as artist, count(*)::int as song_count,
      coalesce(sum(duration), 0)::float8 as duration, sum(play_count)::int as play_count, min(created_ms) as created_ms, max(created_ms) as newest_ms,
      max(year) as year, min(genre) as genre, array_agg(distinct genre) as genres, max(played_ms) as played_ms,
      (array_agg(job_id order by track_number nulls last, created_ms) filter (where has_art))[1] as cover_job,
      count(facts_file)::int as measured
    from songs group by album_key, artist_key
  ) a left join subsonic_stars st on st.user_id = ${userId} and st.item_id = 'al-' || a.album_key
)`

export interface Page {
  limit: number
  offset: number
}

const page = (p?: Page) => (p ? sql` limit ${p.limit} offset ${p.offset}` : sql``)

export async function querySongs(db: Db, userId: string, opts: { where?: SQL; order?: SQL; page?: Page } = {}): Promise<SongRow[]> {
  const order = opts.order ?? sql`created_ms, job_id, track`
  return rowsOf<SongRow>(
    await db.execute(sql`with ${songsCte(userId)} select * from songs ${opts.where ? sql`where ${opts.where}` : sql``} order by ${order}${page(opts.page)}`),
  )
}

export async function queryAlbums(db: Db, userId: string, opts: { where?: SQL; order?: SQL; page?: Page } = {}): Promise<AlbumRow[]> {
  const order = opts.order ?? sql`lower(name), name, album_key`
  return rowsOf<AlbumRow>(
    await db.execute(
      sql`with ${songsCte(userId)}, ${albumsCte(userId)} select * from albums ${opts.where ? sql`where ${opts.where}` : sql``} order by ${order}${page(opts.page)}`,
    ),
  )
}

export async function queryArtists(db: Db, userId: string, opts: { where?: SQL; page?: Page } = {}): Promise<ArtistRow[]> {
  return rowsOf<ArtistRow>(
    await db.execute(sql`with ${songsCte(userId)}, artists as (
      select artist_key, min(artist) as name, count(distinct album_key)::int as album_count,
        (array_agg(job_id order by created_ms) filter (where has_art))[1] as cover_job
      from songs group by artist_key)
      select a.*, (extract(epoch from st.starred) * 1000)::float8 as starred_ms from artists a
      left join subsonic_stars st on st.user_id = ${userId} and st.item_id = 'ar-' || a.artist_key
      ${opts.where ? sql`where ${opts.where}` : sql``}
      order by lower(name), name, artist_key${page(opts.page)}`),
  )
}

export async function queryGenres(db: Db, userId: string) {
  return rowsOf<{ genre: string; song_count: number; album_count: number }>(
    await db.execute(sql`with ${songsCte(userId)}
      select genre, count(*)::int as song_count, count(distinct album_key)::int as album_count
      from songs where genre is not null group by genre order by lower(genre), genre`),
  )
}

/** `%text%` for ILIKE, with the pattern characters taken literally. */
export const containing = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

// ---- facts read from the files ----------------------------------------------------------------

const FACT_READS = 4

/**
 * Fills size, duration, bit rate and ReplayGain of the rows whose facts are missing or were
 * read from another file, reading the MP3s (a few at a time) and keeping what was read.
 */
export async function withFacts(db: Db, dataDir: string, userId: string, rows: SongRow[]): Promise<SongRow[]> {
  const stale = rows.filter((r) => r.facts_file !== r.file)
  if (!stale.length) return rows
  let next = 0
  const worker = async () => {
    while (next < stale.length) {
      const row = stale[next++]!
      const facts = await readFacts(inside(jobDir(dataDir, userId, row.job_id), row.file))
      if (!facts) continue
      Object.assign(row, { facts_file: row.file, size: facts.size, duration: facts.duration, bit_rate: facts.bitRate, track_gain: facts.trackGain, track_peak: facts.trackPeak })
      const values = { file: row.file, ...facts }
      await db
        .insert(subsonicSongs)
        .values({ jobId: row.job_id, track: row.track, userId, ...values })
        .onConflictDoUpdate({ target: [subsonicSongs.jobId, subsonicSongs.track], set: values })
        // the job may have been deleted meanwhile (foreign key): nothing to keep then
        .catch((err: unknown) => log.debug('song facts not kept', { job: row.job_id, ...errorFields(err) }))
    }
  }
  await Promise.all(Array.from({ length: Math.min(FACT_READS, stale.length) }, worker))
  return rows
}

const measuring = new Set<string>()

/** Album answers sum durations: measure the user's unmeasured songs in the background (once at a time). */
export function measureInBackground(db: Db, dataDir: string, userId: string) {
  if (measuring.has(userId)) return
  measuring.add(userId)
  void (async () => {
    try {
      const rows = await querySongs(db, userId, { where: sql`facts_file is distinct from file` })
      await withFacts(db, dataDir, userId, rows)
    } catch (err) {
      log.warn('song facts not measured', { userId, ...errorFields(err) })
    } finally {
      measuring.delete(userId)
    }
  })()
}

export interface Facts {
  size: number
  duration: number | null
  bitRate: number | null
  trackGain: number | null
  trackPeak: number | null
}

export async function readFacts(path: string): Promise<Facts | null> {
  try {
    const [info, meta] = await Promise.all([stat(path), parseFile(path, { duration: true, skipCovers: true })])
    const { format, common } = meta
    return {
      size: info.size,
      duration: format.duration ?? null,
      bitRate: format.bitrate ? Math.round(format.bitrate / 1000) : null,
      trackGain: common.replaygain_track_gain?.dB ?? null,
      trackPeak: common.replaygain_track_peak?.ratio ?? null,
    }
  } catch {
    return null
  }
}

/** A tag edit rewrote the job's files: their size is read again at the next answer. */
export async function forgetSongFacts(db: Db, jobId: string) {
  await db.execute(sql`update subsonic_songs set file = null where job_id = ${jobId}`)
}
