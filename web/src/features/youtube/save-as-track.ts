/**
 * "Save as track": a video becomes a prefilled Music Downloader form
 * (/music/downloader?videoUrl&title&artist&artworkUrl).
 */

/** Separators between artist and title in 'Artist - Title' video titles. */
const SEPARATOR = /\s+[-–—]\s+/

/** Noise that names the upload rather than the song. */
const NOISE = /\s*[([](?:official\s+)?(?:music\s+|lyric\s+|audio\s*|hd\s*|4k\s*)?(?:video|audio|lyrics?|visuali[sz]er|hd|4k)[)\]]\s*/gi

/**
 * Splits 'Artist - Title' at the first dash surrounded by spaces. Without
 * one, the title is the whole video title and the artist is the channel
 * (YouTube's auto-generated '<Artist> - Topic' channels lose the suffix).
 */
export function splitArtistTitle(videoTitle: string, channelTitle = ''): { artist: string; title: string } {
  const cleaned = videoTitle.replace(NOISE, ' ').replace(/\s+/g, ' ').trim() || videoTitle.trim()
  const match = SEPARATOR.exec(cleaned)
  if (match && match.index > 0) {
    const artist = cleaned.slice(0, match.index).trim()
    const title = cleaned.slice(match.index + match[0].length).trim()
    if (artist && title) return { artist, title }
  }
  return { artist: channelTitle.replace(/\s+-\s+Topic$/i, '').trim(), title: cleaned }
}

export type TrackSearch = { videoUrl: string; title: string; artist: string; artworkUrl: string }

/** The video's own URL: YouTube's watch page, or the direct media file in demo and test mode. */
export function videoUrlOf(video: { id: string; mediaUrl?: string | null }): string {
  return video.mediaUrl ?? `https://www.youtube.com/watch?v=${encodeURIComponent(video.id)}`
}

export function trackSearch(video: {
  id: string
  title: string
  thumbnail: string
  mediaUrl?: string | null
  channel: { title: string }
}): TrackSearch {
  const { artist, title } = splitArtistTitle(video.title, video.channel.title)
  return { videoUrl: videoUrlOf(video), title, artist, artworkUrl: video.thumbnail }
}
