import { stat } from 'node:fs/promises'
import { sql, type SQL } from 'drizzle-orm'
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

/**
 * Every song of one user: the finished jobs, each split track on its own row. Only plain
 * columns here: the hashes and times the answers need are computed for the page alone
 * (querySongs), so a page of 500 out of 10,000 songs hashes 500 rows, not 10,000.
 */
const songsCte = (userId: string) => sql`songs as (
  select j.id as job_id, j.user_id,
    coalesce((t.value->>'trackNumber')::int, 0) as track,
    coalesce(t.value->>'title', j.title) as title,
    j.artist, j.album, nullif(j.grouping, '') as genre,
    case when t.value is null then j.track_number else (t.value->>'trackNumber')::int end as track_number,
    j.year, j.artwork_file is not null as has_art,
    coalesce(t.value->>'file', j.output_file) as file, j.completed,
    s.file as facts_file, s.size, s.duration, s.bit_rate, s.track_gain, s.track_peak,
    coalesce(s.play_count, 0) as play_count, s.played, s.starred
  from music_jobs j
  left join lateral jsonb_array_elements(j.tracks) t(value) on true
  left join subsonic_songs s on s.job_id = j.id and s.track = coalesce((t.value->>'trackNumber')::int, 0)
  where j.user_id = ${userId} and j.completed is not null and j.output_file is not null
)`

/**
 * The one spelling of the album and artist keys in SQL (ids.ts albumKeyOf computes the same in
 * JavaScript): md5 of the user, artist and album joined by U+001F. `t` qualifies the columns (`a.`).
 */
const albumKeySql = (t = '') => sql.raw(`md5(${t}user_id::text || chr(31) || ${t}artist || chr(31) || ${t}album)`)
const artistKeySql = (t = '') => sql.raw(`md5(${t}user_id::text || chr(31) || ${t}artist)`)
/** A song's album key, for conditions on the songs relation. */
export const songAlbumKey = albumKeySql()
const songArtistKey = artistKeySql()
const ms = (column: string) => sql.raw(`(extract(epoch from ${column}) * 1000)::float8`)

const albumsCte = (userId: string) => sql`albums as (
  select a.*, ${albumKeySql('a.')} as album_key,
    ${artistKeySql('a.')} as artist_key, (extract(epoch from st.starred) * 1000)::float8 as starred_ms from (
    select user_id, artist, album, album as name, count(*)::int as song_count,
      coalesce(sum(round(duration::numeric)), 0)::float8 as duration, sum(play_count)::int as play_count,
      ${ms('min(completed)')} as created_ms, ${ms('max(completed)')} as newest_ms,
      max(year) as year, min(genre) as genre, array_agg(genre) as genres, ${ms('max(played)')} as played_ms,
      (array_agg(job_id::text order by track_number nulls last, completed) filter (where has_art))[1] as cover_job,
      count(facts_file)::int as measured
    from songs group by user_id, artist, album
  ) a left join subsonic_stars st on st.user_id = ${userId} and st.item_id = 'al-' || ${albumKeySql('a.')}
)`

export interface Page {
  limit: number
  offset: number
}

const page = (p?: Page) => (p ? sql` limit ${p.limit} offset ${p.offset}` : sql``)

/**
 * Songs, filtered and ordered by plain columns of `songs` (title, artist, album, genre, year,
 * completed, job_id, track, track_number, starred, played, play_count, facts_file, file), one
 * page of them shaped for the answer.
 */
export async function querySongs(db: Db, userId: string, opts: { where?: SQL; order?: SQL; page?: Page } = {}): Promise<SongRow[]> {
  const order = opts.order ?? sql`completed, job_id, track`
  return rowsOf<SongRow>(
    await db.execute(sql`with ${songsCte(userId)}, page as (
      select * from songs ${opts.where ? sql`where ${opts.where}` : sql``} order by ${order}${page(opts.page)})
      select job_id::text as job_id, track, title, artist, album, genre, track_number, year, has_art, file,
        ${ms('completed')} as created_ms, ${songAlbumKey} as album_key, ${songArtistKey} as artist_key,
        facts_file, size::float8 as size, duration::float8 as duration, bit_rate, track_gain::float8 as track_gain,
        track_peak::float8 as track_peak, play_count, ${ms('played')} as played_ms, ${ms('starred')} as starred_ms
      from page order by ${order}`),
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
      select ${songArtistKey} as artist_key, artist as name, count(distinct album)::int as album_count,
        (array_agg(job_id::text order by completed) filter (where has_art))[1] as cover_job
      from songs group by user_id, artist)
      select a.*, (extract(epoch from st.starred) * 1000)::float8 as starred_ms from artists a
      left join subsonic_stars st on st.user_id = ${userId} and st.item_id = 'ar-' || a.artist_key
      ${opts.where ? sql`where ${opts.where}` : sql``}
      order by lower(name), name, artist_key${page(opts.page)}`),
  )
}

export async function queryGenres(db: Db, userId: string) {
  return rowsOf<{ genre: string; song_count: number; album_count: number }>(
    await db.execute(sql`with ${songsCte(userId)}
      select genre, count(*)::int as song_count, count(distinct (artist, album))::int as album_count
      from songs where genre is not null group by genre order by lower(genre), genre`),
  )
}

/** The artist and album names an album key stands for (null when the user has no such album). */
export async function albumNames(db: Db, userId: string, key: string): Promise<{ artist: string; album: string } | null> {
  const [row] = rowsOf<{ artist: string; album: string }>(
    await db.execute(sql`select artist, album from music_jobs where user_id = ${userId} and completed is not null
      and output_file is not null and ${songAlbumKey} = ${key} limit 1`),
  )
  return row ?? null
}

/** The artist name an artist key stands for. */
export async function artistName(db: Db, userId: string, key: string): Promise<string | null> {
  const [row] = rowsOf<{ artist: string }>(
    await db.execute(sql`select artist from music_jobs where user_id = ${userId} and completed is not null
      and output_file is not null and ${songArtistKey} = ${key} limit 1`),
  )
  return row?.artist ?? null
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
    const [info, meta] = await Promise.all([stat(path), import('music-metadata').then((m) => m.parseFile(path, { duration: true, skipCovers: true }))])
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
