import type { AlbumData, ArtistData, SongData } from '../format.ts'
import { albumId, artistId, coverId, songId } from '../ids.ts'
import type { AlbumRow, ArtistRow, SongRow } from '../library.ts'

/** Rows of the library (library.ts) shaped as Subsonic answers (format.ts); no queries here. */

const ARTICLES = /^(the|el|la|los|las|le|les)\s+/i
export const IGNORED_ARTICLES = 'The El La Los Las Le Les'

export const iso = (ms: number | null | undefined) => (ms == null ? undefined : new Date(ms).toISOString())
const clean = (s: string) => s.replace(/[/\\]/g, ' ').trim() || '_'

/** `value` rounded to `places` decimals (null stays null). */
function decimals(value: number | null, places: number): number | null {
  if (value == null) return null
  const scale = 10 ** places
  return Math.round(Number(value) * scale) / scale
}

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

/** An album; its duration is the sum of its songs' rounded durations, as getAlbum lists them. */
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

/** An album as a directory entry (the older getAlbumList and search2). */
export function albumAsChild(a: AlbumData) {
  return {
    id: a.id,
    parent: a.artistId,
    isDir: true,
    title: a.name,
    album: a.name,
    artist: a.artist,
    year: a.year,
    genre: a.genre,
    coverArt: a.coverArt,
    duration: a.duration,
    playCount: a.playCount,
    created: a.created,
    starred: a.starred,
    songCount: a.songCount,
  }
}

export const toArtist = (r: ArtistRow): ArtistData => ({
  id: artistId(r.artist_key),
  name: r.name,
  coverArt: r.cover_job ? coverId(r.cover_job) : null,
  albumCount: r.album_count,
  starred: iso(r.starred_ms),
})

function indexName(name: string): string {
  const first = name.replace(ARTICLES, '').trim().charAt(0).toUpperCase()
  return /\p{L}/u.test(first) ? first : '#'
}

/** Items grouped under their first letter (articles skipped), `#` last. */
export function byIndex<T extends { name?: string | null }>(items: T[]): { name: string; artist: T[] }[] {
  const groups = new Map<string, T[]>()
  for (const item of items) {
    const key = indexName(item.name ?? '')
    const list = groups.get(key) ?? []
    list.push(item)
    groups.set(key, list)
  }
  return [...groups.entries()].sort(([a], [b]) => (a === '#' ? 1 : b === '#' ? -1 : a.localeCompare(b))).map(([name, artist]) => ({ name, artist }))
}
