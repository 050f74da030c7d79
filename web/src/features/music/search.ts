import { z } from 'zod'

// the router reads `?title=1999` as the number 1999: take numbers and booleans as their text
const text = z
  .preprocess((v) => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : v), z.string().trim().max(4096))
  .optional()
  .catch(undefined)

/**
 * Search params of /music/downloader: the video area's "Save as track" opens
 * the page with these to prefill the form. Anything malformed is dropped.
 *
 *     <Link to="/music/downloader" search={{ videoUrl, title, artist, artworkUrl }}>Save as track</Link>
 */
export const musicDownloaderSearch = z.object({
  videoUrl: text,
  title: text,
  artist: text,
  artworkUrl: text,
})

export type MusicPrefill = z.output<typeof musicDownloaderSearch>
