import { z } from 'zod'
import { printable } from '../lib/fields.ts'
import type { ErrorKind } from '../tools/failure.ts'

/** Shared with the web form: the field rules of section 5 of the spec. */
const required = (max: number) => printable(z.string({ error: 'Required' })).trim().min(1, 'Required').max(max, `At most ${max} characters`)
const optional = (max: number) =>
  printable(z.string())
    .trim()
    .max(max, `At most ${max} characters`)
    .optional()
    .transform((v) => v || undefined)

const httpUrl = z.string().refine((v) => {
  try {
    const url = new URL(v)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}, 'Invalid Link')

/** `data:image/png;base64,...` (or jpeg), as POST /tags answers and the form sends back. */
export const artworkDataUri = /^data:image\/(png|jpe?g|webp|gif);base64,([A-Za-z0-9+/=\s]+)$/

export const MAX_ARTWORK_BYTES = 10 * 1024 * 1024

/** The text fields of POST /jobs/create (the file part is checked by its bytes). */
export const musicJobFields = z.object({
  video_url: optional(4096).pipe(httpUrl.optional()),
  artwork_url: printable(z.string())
    .trim()
    .max(Math.ceil((MAX_ARTWORK_BYTES * 4) / 3) + 100, 'Artwork is too large')
    .optional()
    .transform((v) => v || undefined)
    .pipe(z.union([z.string().regex(artworkDataUri), httpUrl], { error: 'Invalid Link' }).optional()),
  title: required(300),
  artist: required(300),
  album: required(300),
  grouping: optional(300),
})
export type MusicJobFields = z.output<typeof musicJobFields>

export const musicJobListQuery = z.object({
  page: z.coerce.number({ error: 'Must be a number' }).int().min(1).max(1_000_000).default(1),
  per_page: z.coerce.number({ error: 'Must be a number' }).int().min(1).max(50).default(5),
})

export const videoUrlQuery = z.object({ video_url: printable(z.string({ error: 'Required' })).max(4096).pipe(httpUrl) })
export const artworkUrlQuery = z.object({ artwork_url: printable(z.string({ error: 'Required' })).max(4096).pipe(httpUrl) })

/** A job as GET /jobs/list answers it (docs/api.md#music-job-shape). */
export interface MusicJob {
  id: string
  videoUrl: string | null
  originalFilename: string | null
  filenameUrl: string | null
  artworkUrl: string | null
  title: string
  artist: string
  album: string
  grouping: string | null
  completed: string | null
  failed: string | null
  downloadUrl: string | null
  downloadFilename: string | null
  createdAt: string
  progress: number
  webdav: 'uploaded' | 'failed' | null
  /** Why the job failed, for a person; null unless failed. */
  error: string | null
  errorKind: ErrorKind | null
}

/** WebSocket /api/music/jobs/listen messages. */
export type MusicJobEvent =
  | { id: string; status: 'STARTED' }
  | { id: string; status: 'PROGRESS'; progress: number }
  | { id: string; status: 'COMPLETED' }
  | { status: 'PING' }

export interface MusicTags {
  title: string | null
  artist: string | null
  album: string | null
  grouping: string | null
  artworkUrl: string | null
}
