/**
 * Subsonic ids, derived (never stored): a song is its job (`tr-<job>`) or one track of a
 * chapter split (`tr-<job>-<n>`); an album is the hash of its owner, artist and title, an
 * artist the hash of its owner and name, so they survive restarts and stay the same while the
 * names do. The same hashes are computed in SQL (library.ts): md5 of the UTF-8 text joined
 * by U+001F. See docs/decisions/171-subsonic-library-and-ids.md.
 */
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'
const SONG = new RegExp(`^tr-(${UUID})(?:-(\\d{1,3}))?$`, 'i')
const COVER = new RegExp(`^co-(${UUID})$`, 'i')
const PLAYLIST = new RegExp(`^pl-(${UUID})$`, 'i')
const KEY = /^[0-9a-f]{32}$/

export const SEP = '\u001f'
export const md5 = (s: string) => Bun.CryptoHasher.hash('md5', s, 'hex')

export const songId = (jobId: string, track: number) => (track ? `tr-${jobId}-${track}` : `tr-${jobId}`)
export const albumId = (key: string) => `al-${key}`
export const artistId = (key: string) => `ar-${key}`
export const coverId = (jobId: string) => `co-${jobId}`
export const playlistId = (id: string) => `pl-${id}`

/** A podcast channel is its YouTube channel (`pc-UC…`), an episode its video (`pe-<video>`), played by `ps-<video>`. */
export const podcastChannelId = (channelId: string) => `pc-${channelId}`
export const episodeId = (videoId: string) => `pe-${videoId}`
export const episodeStreamId = (videoId: string) => `ps-${videoId}`
export const parsePodcastChannelId = (id: string) => /^pc-(UC[\w-]{22})$/.exec(id)?.[1] ?? null
/** The video of an episode id or stream id. */
export const parseEpisodeId = (id: string) => /^p[es]-([\w-]{11})$/.exec(id)?.[1] ?? null

export const albumKeyOf = (userId: string, artist: string, album: string) => md5(`${userId}${SEP}${artist}${SEP}${album}`)

export function parseSongId(id: string): { jobId: string; track: number } | null {
  const m = SONG.exec(id)
  return m ? { jobId: m[1]!.toLowerCase(), track: m[2] ? Number(m[2]) : 0 } : null
}

export function parseKey(id: string, prefix: 'al' | 'ar'): string | null {
  if (!id.startsWith(`${prefix}-`)) return null
  const key = id.slice(3).toLowerCase()
  return KEY.test(key) ? key : null
}

export const parseCoverId = (id: string) => COVER.exec(id)?.[1]?.toLowerCase() ?? null
export const parsePlaylistId = (id: string) => PLAYLIST.exec(id)?.[1]?.toLowerCase() ?? null
