import { and, asc, eq, sql } from 'drizzle-orm'
import type { Context } from 'hono'
import type { AppContext, SessionUser } from '../context.ts'
import { sendFile, sendStored } from '../lib/send-file.ts'
import { jobKey } from '../music/stored.ts'
import { musicJobs } from '../music/tables.ts'
import { coverFile } from './covers.ts'
import { type AlbumData, type Answer, answer, type ArtistData, type SongData } from './format.ts'
import { albumId, artistId, coverId, parseCoverId, parseKey, parsePlaylistId, parseSongId, playlistId, songId } from './ids.ts'
import {
  albumNames,
  artistName,
  type AlbumRow,
  type ArtistRow,
  containing,
  measureInBackground,
  queryAlbums,
  queryArtists,
  queryGenres,
  querySongs,
  type SongRow,
  withFacts,
} from './library.ts'
import { notFound, type Params, SubsonicError } from './params.ts'
import { subsonicPlaylistEntries, subsonicPlaylists, subsonicPlayQueues, subsonicSongs, subsonicStars } from './tables.ts'

export interface Call {
  ctx: AppContext
  c: Context
  user: SessionUser
  params: Params
}
export type Method = (call: Call) => Promise<Answer | Response>

const IGNORED_ARTICLES = 'The El La Los Las Le Les'
const ARTICLES = /^(the|el|la|los|las|le|les)\s+/i
const FOLDER_ID = 1
const MAX_LIST = 500

const iso = (ms: number | null | undefined) => (ms == null ? undefined : new Date(ms).toISOString())
const clean = (s: string) => s.replace(/[/\\]/g, ' ').trim() || '_'

export function toSong(r: SongRow): SongData {
  return {
    id: songId(r.job_id, r.track),
    parent: albumId(r.album_key),
    isDir: false,
    title: r.title,
    album: r.album,
    artist: r.artist,
    track: r.track_number,
    year: r.year,
    genre: r.genre,
    coverArt: r.has_art ? coverId(r.job_id) : null,
    size: r.size,
    contentType: 'audio/mpeg',
    suffix: 'mp3',
    duration: r.duration == null ? null : Math.round(r.duration),
    bitRate: r.bit_rate,
    path: `${clean(r.artist)}/${clean(r.album)}/${r.file.slice(r.file.lastIndexOf('/') + 1)}`,
    playCount: r.play_count,
    created: iso(r.created_ms),
    starred: iso(r.starred_ms),
    albumId: albumId(r.album_key),
    artistId: artistId(r.artist_key),
    type: 'music',
    mediaType: 'song',
    played: iso(r.played_ms),
    isVideo: false,
    // as the tags hold them (2 and 6 decimals): a \`real\` column read back on PostgreSQL carries float4 noise
    replayGain: r.track_gain == null && r.track_peak == null ? null : { trackGain: decimals(r.track_gain, 2), trackPeak: decimals(r.track_peak, 6) },
  }
}

export function toAlbum(r: AlbumRow): AlbumData {
  return {
    id: albumId(r.album_key),
    name: r.name,
    artist: r.artist,
    artistId: artistId(r.artist_key),
    coverArt: r.cover_job ? coverId(r.cover_job) : null,
    songCount: r.song_count,
    duration: Math.round(r.duration),
    playCount: r.play_count,
    created: iso(r.created_ms),
    starred: iso(r.starred_ms),
    year: r.year,
    genre: r.genre,
    played: iso(r.played_ms),
  }
}

const toArtist = (r: ArtistRow): ArtistData => ({
  id: artistId(r.artist_key),
  name: r.name,
  coverArt: r.cover_job ? coverId(r.cover_job) : null,
  albumCount: r.album_count,
  starred: iso(r.starred_ms),
})

const songs = async (call: Call, rows: SongRow[]) => (await withFacts(call.ctx.db, call.ctx.env.DATA_DIR, call.user.id, rows)).map(toSong)

/** Albums sum their songs' durations: measure what is not measured yet, without waiting. */
const albums = (call: Call, rows: AlbumRow[]) => {
  if (rows.some((r) => r.measured < r.song_count)) measureInBackground(call.ctx.db, call.ctx.env.DATA_DIR, call.user.id)
  return rows.map(toAlbum)
}

const whereSong = (id: string) => {
  const s = parseSongId(id)
  if (!s) throw notFound('Song')
  return sql`job_id = ${s.jobId} and track = ${s.track}`
}

async function oneSong(call: Call, id: string): Promise<SongRow> {
  const [row] = await querySongs(call.ctx.db, call.user.id, { where: whereSong(id) })
  if (!row) throw notFound('Song')
  return row
}

/** The album of an `al-` id: its names looked up by key, then only its songs grouped. */
async function oneAlbum(call: Call, id: string): Promise<AlbumRow> {
  const key = parseKey(id, 'al')
  const names = key ? await albumNames(call.ctx.db, call.user.id, key) : null
  const [row] = names ? await queryAlbums(call.ctx.db, call.user.id, { where: sql`artist = ${names.artist} and album = ${names.album}` }) : []
  if (!row) throw notFound('Album')
  return row
}

async function oneArtist(call: Call, id: string): Promise<ArtistRow> {
  const key = parseKey(id, 'ar')
  const name = key ? await artistName(call.ctx.db, call.user.id, key) : null
  const [row] = name !== null ? await queryArtists(call.ctx.db, call.user.id, { where: sql`a.name = ${name}` }) : []
  if (!row) throw notFound('Artist')
  return row
}

/** Songs of one album, by its names (the condition reaches the jobs scan). */
const inAlbum = (a: AlbumRow) => sql`artist = ${a.artist} and album = ${a.name}`

function checkFolder(params: Params) {
  const folder = params.get('musicFolderId')
  if (folder !== undefined && folder !== '' && folder !== String(FOLDER_ID)) throw notFound('Music folder')
}

function indexName(name: string): string {
  const first = name.replace(ARTICLES, '').trim().charAt(0).toUpperCase()
  return /\p{L}/u.test(first) ? first : '#'
}

function byIndex<T extends { name?: string | null }>(items: T[]): { name: string; artist: T[] }[] {
  const groups = new Map<string, T[]>()
  for (const item of items) {
    const key = indexName(item.name ?? '')
    const list = groups.get(key) ?? []
    list.push(item)
    groups.set(key, list)
  }
  return [...groups.entries()].sort(([a], [b]) => (a === '#' ? 1 : b === '#' ? -1 : a.localeCompare(b))).map(([name, artist]) => ({ name, artist }))
}

/** Search text: an empty query, `""` or `*` (as players send them) lists everything. */
function searchText(raw: string | undefined): string | null {
  const q = (raw ?? '').trim().replace(/^"(.*)"$/, '$1').replace(/\*/g, '').trim()
  return q || null
}

const pageOf = (params: Params, count: string, offset: string, fallback = 20) => ({
  limit: params.int(count, fallback, 0, MAX_LIST),
  offset: params.int(offset, 0, 0, Number.MAX_SAFE_INTEGER),
})

/** Parses song ids and checks each is one of the user's songs; error 70 otherwise. */
async function ownSongIds(call: Call, raw: string[]): Promise<{ jobId: string; track: number; id: string }[]> {
  const ids = raw.map((id) => {
    const s = parseSongId(id)
    if (!s) throw notFound('Song')
    return { ...s, id }
  })
  if (!ids.length) return []
  const rows = await querySongs(call.ctx.db, call.user.id, {
    where: sql`job_id in (${sql.join([...new Set(ids.map((i) => i.jobId))].map((j) => sql`${j}`), sql`, `)})`,
  })
  const have = new Set(rows.map((r) => songId(r.job_id, r.track)))
  for (const i of ids) if (!have.has(songId(i.jobId, i.track))) throw notFound('Song')
  return ids
}

async function songsByIds(call: Call, ids: { jobId: string; track: number }[]): Promise<SongData[]> {
  if (!ids.length) return []
  const rows = await querySongs(call.ctx.db, call.user.id, {
    where: sql`job_id in (${sql.join([...new Set(ids.map((i) => i.jobId))].map((j) => sql`${j}`), sql`, `)})`,
  })
  const byId = new Map(rows.map((r) => [songId(r.job_id, r.track), r]))
  const ordered = ids.map((i) => byId.get(songId(i.jobId, i.track))).filter((r): r is SongRow => !!r)
  return songs(call, ordered)
}

// ---- playlists ------------------------------------------------------------------------------

async function ownPlaylist(call: Call, id: string) {
  const uuid = parsePlaylistId(id)
  const [row] = uuid
    ? await call.ctx.db
        .select()
        .from(subsonicPlaylists)
        .where(and(eq(subsonicPlaylists.id, uuid), eq(subsonicPlaylists.userId, call.user.id)))
    : []
  if (!row) throw notFound('Playlist')
  return row
}

async function playlistEntries(call: Call, id: string) {
  return call.ctx.db
    .select({ jobId: subsonicPlaylistEntries.jobId, track: subsonicPlaylistEntries.track, position: subsonicPlaylistEntries.position })
    .from(subsonicPlaylistEntries)
    .where(eq(subsonicPlaylistEntries.playlistId, id))
    .orderBy(asc(subsonicPlaylistEntries.position))
}

async function playlistAnswer(call: Call, row: typeof subsonicPlaylists.$inferSelect, withEntries: boolean) {
  const entries = await songsByIds(call, await playlistEntries(call, row.id))
  const first = entries.find((e) => e.coverArt)
  return {
    id: playlistId(row.id),
    name: row.name,
    comment: row.comment,
    owner: call.user.email,
    public: row.public,
    songCount: entries.length,
    duration: entries.reduce((sum, e) => sum + (e.duration ?? 0), 0),
    created: row.createdAt.toISOString(),
    changed: row.changedAt.toISOString(),
    coverArt: first?.coverArt ?? null,
    ...(withEntries ? { entry: entries } : {}),
  }
}

async function writeEntries(call: Call, id: string, entries: { jobId: string; track: number }[]) {
  await call.ctx.db.transaction(async (tx) => {
    await tx.delete(subsonicPlaylistEntries).where(eq(subsonicPlaylistEntries.playlistId, id))
    if (entries.length)
      await tx.insert(subsonicPlaylistEntries).values(entries.map((e, position) => ({ playlistId: id, position, jobId: e.jobId, track: e.track })))
    await tx.update(subsonicPlaylists).set({ changedAt: new Date() }).where(eq(subsonicPlaylists.id, id))
  })
}

// ---- stars ------------------------------------------------------------------------------------

async function setStars(call: Call, starred: boolean) {
  const { params, ctx, user } = call
  const songIds = await ownSongIds(call, params.all('id').filter((id) => parseSongId(id)))
  const others = params.all('id').filter((id) => !parseSongId(id))
  const albumIds = [...others.filter((id) => id.startsWith('al-')), ...params.all('albumId')]
  const artistIds = [...others.filter((id) => id.startsWith('ar-')), ...params.all('artistId')]
  if (others.some((id) => !id.startsWith('al-') && !id.startsWith('ar-'))) throw notFound('Item')
  if (!songIds.length && !albumIds.length && !artistIds.length) throw new SubsonicError(10, 'Required parameter is missing: id, albumId or artistId.')
  for (const id of albumIds) await oneAlbum(call, id)
  for (const id of artistIds) await oneArtist(call, id)
  const now = new Date()
  for (const s of songIds) {
    await ctx.db
      .insert(subsonicSongs)
      .values({ jobId: s.jobId, track: s.track, userId: user.id, starred: starred ? now : null })
      .onConflictDoUpdate({ target: [subsonicSongs.jobId, subsonicSongs.track], set: { starred: starred ? now : null } })
  }
  for (const id of [...albumIds, ...artistIds].map((i) => i.toLowerCase())) {
    if (starred) await ctx.db.insert(subsonicStars).values({ userId: user.id, itemId: id, starred: now }).onConflictDoNothing()
    else await ctx.db.delete(subsonicStars).where(and(eq(subsonicStars.userId, user.id), eq(subsonicStars.itemId, id)))
  }
  return null
}

// ---- the methods --------------------------------------------------------------------------------

export const METHODS: Record<string, Method> = {
  ping: async () => null,
  getLicense: async ({ user }) => answer('license', { valid: true, email: user.email }),
  getOpenSubsonicExtensions: async () =>
    answer('openSubsonicExtensions', [
      { name: 'apiKeyAuthentication', versions: [1] },
      { name: 'formPost', versions: [1] },
    ]),
  getMusicFolders: async () => answer('musicFolders', { musicFolder: [{ id: FOLDER_ID, name: 'Music' }] }),

  getIndexes: async (call) => {
    checkFolder(call.params)
    const artists = await queryArtists(call.ctx.db, call.user.id)
    return answer('indexes', {
      lastModified: Date.now(),
      ignoredArticles: IGNORED_ARTICLES,
      index: byIndex(artists.map((a) => ({ id: artistId(a.artist_key), name: a.name, starred: iso(a.starred_ms), albumCount: a.album_count, coverArt: a.cover_job ? coverId(a.cover_job) : null }))),
    })
  },

  getMusicDirectory: async (call) => {
    const id = call.params.required('id')
    if (id === String(FOLDER_ID)) {
      const artists = await queryArtists(call.ctx.db, call.user.id)
      return answer('directory', {
        id,
        name: 'Music',
        child: artists.map((a) => ({ id: artistId(a.artist_key), parent: id, isDir: true, title: a.name, artist: a.name, coverArt: a.cover_job ? coverId(a.cover_job) : null, starred: iso(a.starred_ms) })),
      })
    }
    if (id.startsWith('ar-')) {
      const artist = await oneArtist(call, id)
      const rows = await queryAlbums(call.ctx.db, call.user.id, { where: sql`artist = ${artist.name}`, order: sql`year nulls last, lower(name)` })
      return answer('directory', {
        id: artistId(artist.artist_key),
        parent: String(FOLDER_ID),
        name: artist.name,
        starred: iso(artist.starred_ms),
        child: rows.map((a) => ({
          ...toAlbum(a),
          parent: artistId(artist.artist_key),
          isDir: true,
          title: a.name,
          album: a.name,
          name: undefined,
        })),
      })
    }
    const album = await oneAlbum(call, id)
    const rows = await querySongs(call.ctx.db, call.user.id, { where: inAlbum(album), order: sql`track_number nulls last, completed, job_id, track` })
    return answer('directory', {
      id: albumId(album.album_key),
      parent: artistId(album.artist_key),
      name: album.name,
      starred: iso(album.starred_ms),
      playCount: album.play_count,
      child: await songs(call, rows),
    })
  },

  getArtists: async (call) => {
    checkFolder(call.params)
    const rows = await queryArtists(call.ctx.db, call.user.id)
    return answer('artists', { ignoredArticles: IGNORED_ARTICLES, index: byIndex(rows.map(toArtist)) })
  },

  getArtist: async (call) => {
    const artist = await oneArtist(call, call.params.required('id'))
    const rows = await queryAlbums(call.ctx.db, call.user.id, { where: sql`artist = ${artist.name}`, order: sql`year nulls last, lower(name), album_key` })
    return answer('artist', { ...toArtist(artist), album: albums(call, rows) })
  },

  getAlbum: async (call) => {
    const album = await oneAlbum(call, call.params.required('id'))
    const rows = await querySongs(call.ctx.db, call.user.id, { where: inAlbum(album), order: sql`track_number nulls last, completed, job_id, track` })
    const list = await songs(call, rows)
    return answer('album', { ...toAlbum(album), duration: list.reduce((sum, s) => sum + (s.duration ?? 0), 0), song: list })
  },

  getSong: async (call) => {
    const row = await oneSong(call, call.params.required('id'))
    const [song] = await songs(call, [row])
    return answer('song', song!)
  },

  getGenres: async (call) => {
    const rows = await queryGenres(call.ctx.db, call.user.id)
    return answer('genres', { genre: rows.map((g) => ({ value: g.genre, songCount: g.song_count, albumCount: g.album_count })) })
  },

  getAlbumList2: async (call) => {
    const { params } = call
    checkFolder(params)
    const type = params.required('type')
    const page = { limit: params.int('size', 10, 0, MAX_LIST), offset: params.int('offset', 0, 0, Number.MAX_SAFE_INTEGER) }
    let where: ReturnType<typeof sql> | undefined
    let order: ReturnType<typeof sql>
    switch (type) {
      case 'random':
        order = sql`random()`
        break
      case 'newest':
        // the album that got a song last comes first
        order = sql`newest_ms desc, album_key`
        break
      case 'frequent':
      case 'highest':
        where = sql`play_count > 0`
        order = sql`play_count desc, album_key`
        break
      case 'recent':
        where = sql`played_ms is not null`
        order = sql`played_ms desc, album_key`
        break
      case 'starred':
        where = sql`starred_ms is not null`
        order = sql`starred_ms desc, album_key`
        break
      case 'alphabeticalByName':
        order = sql`lower(name), name, album_key`
        break
      case 'alphabeticalByArtist':
        order = sql`lower(artist), artist, lower(name), album_key`
        break
      case 'byYear': {
        const from = params.optionalInt('fromYear')
        const to = params.optionalInt('toYear')
        if (from === undefined) throw new SubsonicError(10, 'Required parameter is missing: fromYear.')
        if (to === undefined) throw new SubsonicError(10, 'Required parameter is missing: toYear.')
        where = sql`year between ${Math.min(from, to)} and ${Math.max(from, to)}`
        order = from <= to ? sql`year, lower(name), album_key` : sql`year desc, lower(name), album_key`
        break
      }
      case 'byGenre':
        where = sql`${params.required('genre')} = any(genres)`
        order = sql`lower(name), name, album_key`
        break
      default:
        throw new SubsonicError(0, `Unknown list type ${type}: use random, newest, frequent, recent, starred, alphabeticalByName, alphabeticalByArtist, byYear or byGenre.`)
    }
    const rows = page.limit ? await queryAlbums(call.ctx.db, call.user.id, { where, order, page }) : []
    return answer('albumList2', { album: albums(call, rows) })
  },

  getRandomSongs: async (call) => {
    const { params } = call
    checkFolder(params)
    const size = params.int('size', 10, 0, MAX_LIST)
    const genre = params.get('genre')
    const from = params.optionalInt('fromYear')
    const to = params.optionalInt('toYear')
    const conditions = [
      genre ? sql`genre = ${genre}` : undefined,
      from !== undefined ? sql`year >= ${from}` : undefined,
      to !== undefined ? sql`year <= ${to}` : undefined,
    ].filter((c) => c !== undefined)
    const rows = size
      ? await querySongs(call.ctx.db, call.user.id, {
          where: conditions.length ? sql.join(conditions, sql` and `) : undefined,
          order: sql`random()`,
          page: { limit: size, offset: 0 },
        })
      : []
    return answer('randomSongs', { song: await songs(call, rows) })
  },

  search3: async (call) => {
    const { params, ctx, user } = call
    checkFolder(params)
    const q = searchText(params.get('query'))
    const like = q ? containing(q) : null
    const artistPage = pageOf(params, 'artistCount', 'artistOffset')
    const albumPage = pageOf(params, 'albumCount', 'albumOffset')
    const songPage = pageOf(params, 'songCount', 'songOffset')
    const [artists, albumRows, songRows] = await Promise.all([
      artistPage.limit ? queryArtists(ctx.db, user.id, { where: like ? sql`a.name ilike ${like}` : undefined, page: artistPage }) : [],
      albumPage.limit ? queryAlbums(ctx.db, user.id, { where: like ? sql`(name ilike ${like} or artist ilike ${like})` : undefined, order: sql`lower(name), name, album_key`, page: albumPage }) : [],
      songPage.limit
        ? querySongs(ctx.db, user.id, { where: like ? sql`(title ilike ${like} or artist ilike ${like} or album ilike ${like})` : undefined, page: songPage })
        : [],
    ])
    return answer('searchResult3', { artist: artists.map(toArtist), album: albums(call, albumRows), song: await songs(call, songRows) })
  },

  stream: (call) => sendSong(call, false),
  download: (call) => sendSong(call, true),

  getCoverArt: async (call) => {
    const { params, ctx, user } = call
    const id = params.required('id')
    const size = params.optionalInt('size')
    let jobId = parseCoverId(id) ?? parseSongId(id)?.jobId ?? null
    if (!jobId && id.startsWith('al-')) jobId = (await oneAlbum(call, id)).cover_job
    else if (!jobId && id.startsWith('ar-')) jobId = (await oneArtist(call, id)).cover_job
    const [job] = jobId
      ? await ctx.db
          .select({ artworkFile: musicJobs.artworkFile, completed: musicJobs.completed })
          .from(musicJobs)
          .where(and(eq(musicJobs.id, jobId), eq(musicJobs.userId, user.id)))
      : []
    if (!jobId || !job?.artworkFile || !job.completed) throw notFound('Cover art')
    const file = await coverFile(ctx, { userId: user.id, jobId, artworkFile: job.artworkFile }, size && size > 0 ? size : undefined)
    if (!file) throw notFound('Cover art')
    const res = await sendFile(call.c.req.raw, file.path, { filename: `cover.${file.path.split('.').pop()}`, type: file.type })
    res.headers.delete('Content-Disposition')
    res.headers.set('Cache-Control', 'private, max-age=86400')
    return res
  },

  star: (call) => setStars(call, true),
  unstar: (call) => setStars(call, false),

  getStarred2: async (call) => {
    const { ctx, user } = call
    checkFolder(call.params)
    const [artists, albumRows, songRows] = await Promise.all([
      queryArtists(ctx.db, user.id, { where: sql`st.starred is not null` }),
      queryAlbums(ctx.db, user.id, { where: sql`starred_ms is not null`, order: sql`starred_ms desc, album_key` }),
      querySongs(ctx.db, user.id, { where: sql`starred is not null`, order: sql`starred desc, job_id, track` }),
    ])
    return answer('starred2', { artist: artists.map(toArtist), album: albums(call, albumRows), song: await songs(call, songRows) })
  },

  scrobble: async (call) => {
    const { params, ctx, user } = call
    const ids = await ownSongIds(call, params.all('id'))
    if (!ids.length) throw new SubsonicError(10, 'Required parameter is missing: id.')
    if (!params.bool('submission', true)) return null
    const times = params.all('time').map(Number)
    for (const [i, s] of ids.entries()) {
      const at = Number.isFinite(times[i]) && times[i]! > 0 ? new Date(times[i]!) : new Date()
      await ctx.db
        .insert(subsonicSongs)
        .values({ jobId: s.jobId, track: s.track, userId: user.id, playCount: 1, played: at })
        .onConflictDoUpdate({
          target: [subsonicSongs.jobId, subsonicSongs.track],
          set: { playCount: sql`${subsonicSongs.playCount} + 1`, played: sql`greatest(${subsonicSongs.played}, ${at.toISOString()}::timestamptz)` },
        })
    }
    return null
  },

  getPlaylists: async (call) => {
    const { params, ctx, user } = call
    const username = params.get('username')
    if (username && username.toLowerCase() !== user.email) throw new SubsonicError(50, 'You can only list your own playlists.')
    const rows = await ctx.db.select().from(subsonicPlaylists).where(eq(subsonicPlaylists.userId, user.id)).orderBy(asc(subsonicPlaylists.createdAt))
    return answer('playlists', { playlist: await Promise.all(rows.map((r) => playlistAnswer(call, r, false))) })
  },

  getPlaylist: async (call) => {
    const row = await ownPlaylist(call, call.params.required('id'))
    return answer('playlist', await playlistAnswer(call, row, true))
  },

  createPlaylist: async (call) => {
    const { params, ctx, user } = call
    const existing = params.get('playlistId')
    const entries = await ownSongIds(call, params.all('songId'))
    let row: typeof subsonicPlaylists.$inferSelect
    if (existing) {
      row = await ownPlaylist(call, existing)
      const name = params.get('name')
      if (name) await ctx.db.update(subsonicPlaylists).set({ name: name.slice(0, 300) }).where(eq(subsonicPlaylists.id, row.id))
    } else {
      const name = params.required('name').trim().slice(0, 300)
      ;[row] = (await ctx.db.insert(subsonicPlaylists).values({ userId: user.id, name }).returning()) as [typeof row]
    }
    await writeEntries(call, row.id, entries)
    return answer('playlist', await playlistAnswer(call, await ownPlaylist(call, playlistId(row.id)), true))
  },

  updatePlaylist: async (call) => {
    const { params, ctx } = call
    const row = await ownPlaylist(call, params.required('playlistId'))
    const name = params.get('name')
    const comment = params.get('comment')
    const pub = params.get('public')
    const adding = await ownSongIds(call, params.all('songIdToAdd'))
    const removing = new Set(params.all('songIndexToRemove').map(Number))
    await ctx.db
      .update(subsonicPlaylists)
      .set({
        ...(name ? { name: name.slice(0, 300) } : {}),
        ...(comment !== undefined ? { comment: comment.slice(0, 2000) } : {}),
        ...(pub !== undefined ? { public: pub === 'true' } : {}),
        changedAt: new Date(),
      })
      .where(eq(subsonicPlaylists.id, row.id))
    if (adding.length || removing.size) {
      // indexes count the songs the player sees: entries of deleted jobs are already gone
      const current = await playlistEntries(call, row.id)
      const kept = current.filter((_, i) => !removing.has(i))
      await writeEntries(call, row.id, [...kept, ...adding])
    }
    return null
  },

  deletePlaylist: async (call) => {
    const row = await ownPlaylist(call, call.params.required('id'))
    await call.ctx.db.delete(subsonicPlaylists).where(eq(subsonicPlaylists.id, row.id))
    return null
  },

  getPlayQueue: async (call) => {
    const { ctx, user } = call
    const [row] = await ctx.db.select().from(subsonicPlayQueues).where(eq(subsonicPlayQueues.userId, user.id))
    if (!row) return null
    const ids = row.songIds.map(parseSongId).filter((s): s is NonNullable<typeof s> => !!s)
    const entry = await songsByIds(call, ids)
    return answer('playQueue', {
      current: row.current && entry.some((e) => e.id === row.current) ? row.current : entry[0]?.id,
      position: row.position,
      username: user.email,
      changed: row.changedAt.toISOString(),
      changedBy: row.changedBy,
      entry,
    })
  },

  savePlayQueue: async (call) => {
    const { params, ctx, user } = call
    const ids = await ownSongIds(call, params.all('id'))
    if (!ids.length) {
      await ctx.db.delete(subsonicPlayQueues).where(eq(subsonicPlayQueues.userId, user.id))
      return null
    }
    const current = params.get('current') || ids[0]!.id
    if (!ids.some((i) => i.id === current)) throw notFound('Current song in the queue')
    const values = {
      songIds: ids.map((i) => i.id),
      current,
      position: Math.max(0, params.optionalInt('position') ?? 0),
      changedAt: new Date(),
      changedBy: (params.get('c') ?? '').slice(0, 200),
    }
    await ctx.db
      .insert(subsonicPlayQueues)
      .values({ userId: user.id, ...values })
      .onConflictDoUpdate({ target: subsonicPlayQueues.userId, set: values })
    return null
  },

  getUser: async ({ params, user }) => {
    const username = params.required('username')
    if (username.trim().toLowerCase() !== user.email) throw new SubsonicError(50, 'You can only look up your own user.')
    return answer('user', {
      username: user.email,
      email: user.email,
      scrobblingEnabled: true,
      adminRole: false,
      settingsRole: false,
      downloadRole: true,
      uploadRole: false,
      playlistRole: true,
      coverArtRole: false,
      commentRole: false,
      podcastRole: false,
      streamRole: true,
      jukeboxRole: false,
      shareRole: false,
      videoConversionRole: false,
      folder: [FOLDER_ID],
    })
  },
}

async function sendSong(call: Call, download: boolean): Promise<Response> {
  const row = await oneSong(call, call.params.required('id'))
  const filename = row.file.slice(row.file.lastIndexOf('/') + 1)
  // never a redirect here: many players follow none (S3_PRESIGN is for /api routes)
  const res = await sendStored(call.c.req.raw, call.ctx.storage.store, jobKey(call.user.id, row.job_id, row.file), { filename, type: 'audio/mpeg' }).catch(() => {
    throw notFound('Song file')
  })
  if (!download) res.headers.delete('Content-Disposition')
  return res
}

/** `value` rounded to `places` decimals (null stays null). */
function decimals(value: number | null, places: number): number | null {
  if (value == null) return null
  const scale = 10 ** places
  return Math.round(Number(value) * scale) / scale
}
