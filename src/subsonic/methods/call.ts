import { sql } from 'drizzle-orm'
import type { Context } from 'hono'
import type { AppContext, SessionUser } from '../../context.ts'
import { ErrorMissingParameter } from '../errors.ts'
import type { Answer, SongData } from '../format.ts'
import { parseKey, parseSongId, songId } from '../ids.ts'
import { type AlbumRow, type ArtistRow, albumNames, artistName, queryAlbums, queryArtists, querySongs, type SongRow, withFacts } from '../library.ts'
import { notFound, type Params, SubsonicError } from '../params.ts'
import { toAlbum, toSong } from './mappers.ts'
import { inJobs, type SongKey } from './queries.ts'

/** What every method gets, and the look-ups several families share (Navidrome's helpers.go). */
export interface Call {
  ctx: AppContext
  c: Context
  user: SessionUser
  params: Params
}
export type Method = (call: Call) => Promise<Answer | Response>

export const FOLDER_ID = 1
export const MAX_LIST = 500

/** Songs shaped for an answer, their file facts read where missing. */
export const songs = async (call: Call, rows: SongRow[]) => (await withFacts(call.ctx.db, call.ctx.env.DATA_DIR, call.user.id, rows)).map(toSong)

/**
 * Albums shaped for an answer. An album's duration sums its songs' (rounded) durations, which
 * only the files know: songs not measured yet are measured first, so that a list and getAlbum
 * give the same duration (issue 37).
 */
export async function albums(call: Call, rows: AlbumRow[]) {
  const unmeasured = rows.filter((r) => r.measured < r.song_count)
  if (unmeasured.length) {
    const which = sql.join(
      unmeasured.map((a) => sql`(artist = ${a.artist} and album = ${a.name})`),
      sql` or `,
    )
    const fresh = await querySongs(call.ctx.db, call.user.id, { where: sql`facts_file is distinct from file and (${which})` })
    await withFacts(call.ctx.db, call.ctx.env.DATA_DIR, call.user.id, fresh)
    for (const a of unmeasured) {
      const added = fresh.filter((s) => s.artist === a.artist && s.album === a.name && s.duration != null)
      a.duration += added.reduce((sum, s) => sum + Math.round(s.duration!), 0)
    }
  }
  return rows.map(toAlbum)
}

const whereSong = (id: string) => {
  const s = parseSongId(id)
  if (!s) throw notFound('Song')
  return sql`job_id = ${s.jobId} and track = ${s.track}`
}

export async function oneSong(call: Call, id: string): Promise<SongRow> {
  const [row] = await querySongs(call.ctx.db, call.user.id, { where: whereSong(id) })
  if (!row) throw notFound('Song')
  return row
}

/** The album of an `al-` id: its names looked up by key, then only its songs grouped. */
export async function oneAlbum(call: Call, id: string): Promise<AlbumRow> {
  const key = parseKey(id, 'al')
  const names = key ? await albumNames(call.ctx.db, call.user.id, key) : null
  const [row] = names ? await queryAlbums(call.ctx.db, call.user.id, { where: sql`artist = ${names.artist} and album = ${names.album}` }) : []
  if (!row) throw notFound('Album')
  return row
}

export async function oneArtist(call: Call, id: string): Promise<ArtistRow> {
  const key = parseKey(id, 'ar')
  const name = key ? await artistName(call.ctx.db, call.user.id, key) : null
  const [row] = name !== null ? await queryArtists(call.ctx.db, call.user.id, { where: sql`a.name = ${name}` }) : []
  if (!row) throw notFound('Artist')
  return row
}

/** Songs of one album, by its names (the condition reaches the jobs scan). */
export const inAlbum = (a: AlbumRow) => sql`artist = ${a.artist} and album = ${a.name}`
export const ALBUM_ORDER = sql`track_number nulls last, completed, job_id, track`

export function checkFolder(params: Params) {
  const folder = params.get('musicFolderId')
  if (folder !== undefined && folder !== '' && folder !== String(FOLDER_ID)) throw notFound('Music folder')
}

export const pageOf = (params: Params, count: string, offset: string, fallback = 20) => ({
  limit: params.int(count, fallback, 0, MAX_LIST),
  offset: params.int(offset, 0, 0, Number.MAX_SAFE_INTEGER),
})

/** Parses song ids and checks each is one of the user's songs; error 70 otherwise. */
export async function ownSongIds(call: Call, raw: string[]): Promise<(SongKey & { id: string })[]> {
  const ids = raw.map((id) => {
    const s = parseSongId(id)
    if (!s) throw notFound('Song')
    return { ...s, id }
  })
  if (!ids.length) return []
  const rows = await querySongs(call.ctx.db, call.user.id, { where: inJobs(ids.map((i) => i.jobId)) })
  const have = new Set(rows.map((r) => songId(r.job_id, r.track)))
  for (const i of ids) if (!have.has(songId(i.jobId, i.track))) throw notFound('Song')
  return ids
}

/** The user's songs of these ids, in this order (ids of songs gone are skipped). */
export async function songsByIds(call: Call, ids: SongKey[]): Promise<SongData[]> {
  if (!ids.length) return []
  const rows = await querySongs(call.ctx.db, call.user.id, { where: inJobs(ids.map((i) => i.jobId)) })
  const byId = new Map(rows.map((r) => [songId(r.job_id, r.track), r]))
  const ordered = ids.map((i) => byId.get(songId(i.jobId, i.track))).filter((r): r is SongRow => !!r)
  return songs(call, ordered)
}

export const missing = (names: string) => new SubsonicError(ErrorMissingParameter, `Required parameter is missing: ${names}.`)
