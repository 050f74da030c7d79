import { z } from 'zod'
import { printable } from '../lib/fields.ts'
import type { ErrorKind } from '../tools/failure.ts'
import type { Chapter } from '../tools/chapters.ts'

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

const wholeNumber = (min: number, max: number, message: string) =>
  z
    .string()
    .regex(/^\d+$/, message)
    .transform(Number)
    .refine((n) => n >= min && n <= max, message)
    .optional()

/** A multipart checkbox: `true`/`1`/`on` (and `false`/`0`/empty for off). */
const flag = z
  .enum(['true', 'false', '1', '0', 'on', 'off', ''], { error: 'Must be true or false' })
  .optional()
  .transform((v) => v === 'true' || v === '1' || v === 'on')

/** SponsorBlock's segment categories (https://wiki.sponsor.ajay.app/w/Types). */
export const SEGMENT_CATEGORIES = ['sponsor', 'selfpromo', 'interaction', 'intro', 'outro', 'preview', 'music_offtopic', 'filler'] as const

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
  track_number: optional(8).pipe(wholeNumber(1, 999, 'Must be a whole number from 1 to 999')),
  year: optional(8).pipe(wholeNumber(1000, 9999, 'Must be a year such as 1999')),
  split_chapters: flag,
  remove_segments: optional(200).pipe(
    z
      .string()
      .transform((v) => [...new Set(v.split(',').map((c) => c.trim()).filter(Boolean))])
      .refine((list) => list.every((c) => (SEGMENT_CATEGORIES as readonly string[]).includes(c)), {
        error: `Must be a comma list of ${SEGMENT_CATEGORIES.join(', ')}`,
      })
      .optional(),
  ),
  playlist: flag,
})

/** The tag fields of a job, as the web's "Edit tags" form checks them before PATCH /jobs/{id}. */
export const musicTagFields = musicJobFields.pick({ title: true, artist: true, album: true, grouping: true, year: true, track_number: true })

/** With `playlist=true` each entry brings its own title; artist and album are fallbacks. */
export const playlistJobFields = musicJobFields.extend({ title: optional(300), artist: optional(300), album: optional(300) })
export type PlaylistJobFields = z.output<typeof playlistJobFields>

export const musicJobListQuery = z.object({
  page: z.coerce.number({ error: 'Must be a number' }).int().min(1).max(1_000_000).default(1),
  per_page: z.coerce.number({ error: 'Must be a number' }).int().min(1).max(50).default(5),
})

export const videoUrlQuery = z.object({ video_url: printable(z.string({ error: 'Required' })).max(4096).pipe(httpUrl) })
export const artworkUrlQuery = z.object({ artwork_url: printable(z.string({ error: 'Required' })).max(4096).pipe(httpUrl) })
export const musicbrainzQuery = z.object({
  title: printable(z.string({ error: 'Required' })).trim().min(1, 'Required').max(300, 'At most 300 characters'),
  artist: printable(z.string()).trim().max(300, 'At most 300 characters').default(''),
})

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
  trackNumber: number | null
  year: number | null
  /** One entry per track when chapters were split; `downloadUrl` then serves their ZIP. */
  tracks: { title: string; trackNumber: number; downloadUrl: string; downloadFilename: string }[]
  /** Something to know about a finished job, e.g. that SponsorBlock could not be reached. */
  notice: string | null
  /**
   * Set while the job waits for its turn at YouTube: `turn` (extractions start a few seconds apart),
   * `hour` (the hourly limit) or `pause` (after a bot check); `until` is when the wait should end.
   */
  waiting: { reason: 'turn' | 'hour' | 'pause'; until: string | null; message: string } | null
  /** The song's kept lyrics (docs/decisions/266): whether they are timed, and where they came from; null for none. */
  lyrics: { synced: boolean; source: 'file' | 'lookup' | 'edited' } | null
  /** Why the job failed, for a person; null unless failed. */
  error: string | null
  errorKind: ErrorKind | null
}

/** PATCH /jobs/{id}: tags of a finished job. */
export const musicJobPatch = z
  .object({
    title: printable(z.string()).trim().min(1, 'Required').max(300, 'At most 300 characters'),
    artist: printable(z.string()).trim().min(1, 'Required').max(300, 'At most 300 characters'),
    album: printable(z.string()).trim().min(1, 'Required').max(300, 'At most 300 characters'),
    grouping: printable(z.string()).trim().max(300, 'At most 300 characters').nullable(),
    trackNumber: z.number({ error: 'Must be a number' }).int().min(1).max(999).nullable(),
    year: z.number({ error: 'Must be a number' }).int().min(1000).max(9999).nullable(),
    artworkUrl: printable(z.string()).trim().max(4096).pipe(httpUrl).nullable(),
    /** Plain text or LRC; an empty string removes them (docs/decisions/266). Line breaks and tabs are the only controls allowed. */
    lyrics: z
      .string()
      .max(100_000, 'At most 100000 characters')
      .refine((v) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(v), 'Must not contain control characters'),
  })
  .partial()
  .strict()

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
  /** Present only when the file has it (an ID3 TYER/TDRC, a WAV's RIFF ICRD, …). */
  year?: number
  /** Present only when the file has it (ID3 TRCK, a WAV's IPRT/ITRK). */
  trackNumber?: number
}

export type { Chapter }

/** GET /lookup's answer (docs/api.md, Music): suggestions for the form, null where unknown. */
export interface Lookup {
  title: string | null
  artist: string | null
  album: string | null
  grouping: string | null
  artworkUrl: string | null
  trackNumber: number | null
  year: number | null
  duration: number | null
  chapters: Chapter[]
  playlist: { title: string | null; count: number; entries: { url: string; title: string | null; duration: number | null }[] } | null
}

/** One recording GET /musicbrainz suggests. */
export interface Candidate {
  title: string
  artist: string
  album: string | null
  year: number | null
  trackNumber: number | null
  trackCount: number | null
  coverUrl: string | null
  recordingId: string
  releaseId: string | null
}

/** The header of a failed look-up (GET /api/music/lookup, 400) naming why it failed: one of the job's `errorKind`s. */
export const ERROR_KIND_HEADER = 'x-error-kind'
/** A failed look-up's own sentence, where its failure carries one (failureSentence's own sentences: a missing JavaScript runtime). */
export const ERROR_REASON_HEADER = 'x-error-reason'

/**
 * Why a link could not be read, completing "Nothing could be read at this link: …"
 * in the form (decision 180): what happened and what to do.
 */
export const LOOKUP_REASONS: Record<ErrorKind, string> = {
  unavailable: 'the page was not found (it was removed, or the link is wrong). Check the link.',
  private: 'the video is private. Ask its owner to share it, or use another link.',
  sign_in_required: 'it needs a signed-in account (an age or membership check). An admin can add cookies for downloads.',
  bot_check: 'the site asked to confirm this is not a bot. Try again later, or an admin can add cookies.',
  geo_blocked: 'it is not available in the country of the server. Use another link.',
  unsupported_url: 'it is not a page with a video or audio the downloader can read. Use a link to a video or audio page.',
  live: 'it is a live stream or premiere that has not ended yet. Try again once it has finished.',
  too_large: 'the file is larger than the download size limit.',
  timeout: 'the site took too long to answer. Try again later.',
  network: 'the site could not be reached (it refused the connection, failed, or its name is unknown). Check the link, or try again later.',
  tool_missing: 'the downloader (yt-dlp) is not installed on the server. Tell an admin.',
  tool_outdated: 'the downloader is out of date for this site. An admin should update yt-dlp.',
  conversion: 'what the link holds could not be read as audio. Try another link.',
  disk_full: 'the server is out of disk space. Ask its administrator.',
  internal: 'something went wrong on the server. Try again; if it keeps failing, tell an admin.',
  quota: 'your space for kept videos is used up.',
}

/**
 * The sentence for a failed look-up's kind header (an unknown or missing kind reads as a generic failure);
 * a failure's own sentence (ERROR_REASON_HEADER) says more than its kind's, and an admin must act on it.
 */
export function lookupFailure(kind: string | null, own?: string | null): string {
  if (own) return `Nothing could be read at this link: ${own} Tell an admin.`
  const reason = kind && kind in LOOKUP_REASONS ? LOOKUP_REASONS[kind as ErrorKind] : 'the downloader could not read it. Check the link.'
  return `Nothing could be read at this link: ${reason}`
}

export type AudioKind = 'mp3' | 'wav'

/**
 * The upload's type from its first bytes: an ID3v2 header or a valid MPEG
 * audio frame header (sync, version, layer, bitrate and rate not reserved),
 * or a RIFF/WAVE header. Null for anything else.
 */
export function sniffAudio(head: Uint8Array): AudioKind | null {
  if (head.length >= 12) {
    const ascii = (from: number, to: number) => String.fromCharCode(...head.subarray(from, to))
    if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'wav'
  }
  if (head.length >= 10 && head[0] === 0x49 && head[1] === 0x44 && head[2] === 0x33) {
    // "ID3", major version 2-4, size bytes are syncsafe (high bit clear)
    if (head[3]! >= 2 && head[3]! <= 4 && [6, 7, 8, 9].every((i) => head[i]! < 0x80)) return 'mp3'
  }
  if (head.length >= 4 && isMpegFrameHeader(head)) return 'mp3'
  return null
}

function isMpegFrameHeader(b: Uint8Array): boolean {
  if (b[0] !== 0xff || (b[1]! & 0xe0) !== 0xe0) return false
  const version = (b[1]! >> 3) & 0b11 // 01 reserved
  const layer = (b[1]! >> 1) & 0b11 // 00 reserved (and ADTS AAC)
  const bitrate = b[2]! >> 4 // 1111 bad
  const rate = (b[2]! >> 2) & 0b11 // 11 reserved
  return version !== 0b01 && layer !== 0b00 && bitrate !== 0b1111 && rate !== 0b11
}
