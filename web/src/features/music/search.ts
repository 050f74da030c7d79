import { searchValidator } from '~/lib/search-params.ts'

export type MusicPrefill = {
  videoUrl?: string
  title?: string
  artist?: string
  artworkUrl?: string
}

// the router reads `?title=1999` as the number 1999: take numbers and booleans as their text
function text(v: unknown): string | undefined {
  const s = typeof v === 'number' || typeof v === 'boolean' ? String(v) : v
  if (typeof s !== 'string') return undefined
  const trimmed = s.trim()
  return trimmed.length <= 4096 ? trimmed : undefined
}

/**
 * Search params of /music/downloader: the video area's "Save as track" opens
 * the page with these to prefill the form. Anything malformed is dropped.
 * Hand-written rather than zod: validateSearch is part of the first bundle.
 *
 *     <Link to="/music/downloader" search={{ videoUrl, title, artist, artworkUrl }}>Save as track</Link>
 */
export const musicDownloaderSearch = searchValidator<MusicPrefill>({ videoUrl: text, title: text, artist: text, artworkUrl: text })
