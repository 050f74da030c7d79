import { z } from 'zod'

const text = z.string().trim().max(4096).optional().catch(undefined)

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
