import { sql } from 'drizzle-orm'
import { answer } from '../format.ts'
import { albumId, artistId, coverId } from '../ids.ts'
import { queryAlbums, queryArtists, queryGenres, querySongs } from '../library.ts'
import { ALBUM_ORDER, albums, type Call, checkFolder, FOLDER_ID, inAlbum, MAX_LIST, type Method, oneAlbum, oneArtist, oneSong, songs } from './call.ts'
import { byIndex, IGNORED_ARTICLES, iso, toAlbum, toArtist } from './mappers.ts'

/** The item an id names (artist, album or song), checked to be the user's: error 70 otherwise. */
async function oneItem(call: Call, id: string) {
  if (id.startsWith('ar-')) return oneArtist(call, id)
  if (id.startsWith('al-')) return oneAlbum(call, id)
  return oneSong(call, id)
}

/**
 * Browsing: folders, indexes, directories, artists, albums, songs, genres; and the facts players
 * ask of an outside service (artist and album info, similar songs), answered empty: the server
 * asks no such service, and players show what they have.
 */
export const browsing: Record<string, Method> = {
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
        child: (await albums(call, rows)).map((a) => ({ ...a, parent: artistId(artist.artist_key), isDir: true, title: a.name, album: a.name, name: undefined })),
      })
    }
    const album = await oneAlbum(call, id)
    const rows = await querySongs(call.ctx.db, call.user.id, { where: inAlbum(album), order: ALBUM_ORDER })
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
    return answer('artist', { ...toArtist(artist), album: await albums(call, rows) })
  },

  getAlbum: async (call) => {
    const album = await oneAlbum(call, call.params.required('id'))
    const rows = await querySongs(call.ctx.db, call.user.id, { where: inAlbum(album), order: ALBUM_ORDER })
    const list = await songs(call, rows)
    return answer('album', { ...toAlbum(album), duration: list.reduce((sum, s) => sum + (s.duration ?? 0), 0), song: list })
  },

  getSong: async (call) => {
    const row = await oneSong(call, call.params.required('id'))
    const [song] = await songs(call, [row])
    return answer('song', song!)
  },

  getArtistInfo2: async (call) => {
    await oneArtist(call, call.params.required('id'))
    return answer('artistInfo2', {})
  },

  getAlbumInfo2: async (call) => {
    await oneAlbum(call, call.params.required('id'))
    return answer('albumInfo', {})
  },

  getSimilarSongs2: async (call) => {
    await oneItem(call, call.params.required('id'))
    return answer('similarSongs2', {})
  },

  /** The user's own most played songs of the artist (by name, as the call takes it). */
  getTopSongs: async (call) => {
    const artist = call.params.required('artist')
    const count = call.params.int('count', 50, 0, MAX_LIST)
    const rows = count
      ? await querySongs(call.ctx.db, call.user.id, { where: sql`artist = ${artist}`, order: sql`play_count desc, played desc nulls last, completed, job_id, track`, page: { limit: count, offset: 0 } })
      : []
    return answer('topSongs', { song: await songs(call, rows) })
  },

  getGenres: async (call) => {
    const rows = await queryGenres(call.ctx.db, call.user.id)
    return answer('genres', { genre: rows.map((g) => ({ value: g.genre, songCount: g.song_count, albumCount: g.album_count })) })
  },
}
