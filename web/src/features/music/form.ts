import { musicJobFields, sniffAudio } from '#server/music/schema.ts'

/** docs/product.md#constants: jobs list page size, and the debounce of the URL and artwork inputs. */
export const JOBS_PER_PAGE = 5
export const INPUT_DEBOUNCE_MS = 500

/** docs/product.md#music-form: allowed uploads (by declared type; the server checks the bytes). What the file picker offers: the two types, and their extensions for systems that name them otherwise. */
export const AUDIO_ACCEPT: Record<string, string[]> = { 'audio/mpeg': ['.mp3'], 'audio/wav': ['.wav'] }
export const FILE_TYPE_ERROR = 'Must be an audio/mpeg (MP3) or audio/wav (WAV) file'
/** A file named and typed as audio whose bytes are not an MP3 or WAV (the server would refuse it on Submit). */
export const FILE_CONTENT_ERROR = 'This file is not a working MP3 or WAV: its contents are not audio the converter can read. Choose another MP3 or WAV file.'

/** docs/product.md#music-form: the file's first bytes, checked as the server checks them (an ID3 tag or MPEG frame, or RIFF/WAVE). */
export async function isReadableAudio(file: Blob): Promise<boolean> {
  const head = new Uint8Array(await file.slice(0, 16).arrayBuffer())
  return sniffAudio(head) !== null
}

// browsers and systems spell the same two formats a few ways
const AUDIO_ALIASES = new Set(['audio/mpeg', 'audio/mp3', 'audio/mpeg3', 'audio/x-mpeg', 'audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave'])

/** True for an MP3 or WAV file: by its declared type, or by its extension when the type is unknown. */
export function isAcceptedAudio(file: { name: string; type: string }): boolean {
  if (file.type) return AUDIO_ALIASES.has(file.type.toLowerCase())
  return /\.(mp3|wav)$/i.test(file.name)
}

export type Source = 'url' | 'file'

export interface MusicFormValues {
  source: Source
  videoUrl: string
  file: File | null
  artworkUrl: string
  title: string
  artist: string
  album: string
  grouping: string
  /** Optional tags (text while typed; the server's schema checks them). */
  year: string
  trackNumber: string
  /** One track per chapter, when the link has chapters. */
  splitChapters: boolean
  /** Cut SponsorBlock's non-music segments (YouTube links); on by default. */
  removeSegments: boolean
}

export type MusicFormField = Exclude<keyof MusicFormValues, 'source' | 'splitChapters' | 'removeSegments'>
export type MusicFormErrors = Partial<Record<MusicFormField, string>>

export const emptyMusicForm: MusicFormValues = {
  source: 'url',
  videoUrl: '',
  file: null,
  artworkUrl: '',
  title: '',
  artist: '',
  album: '',
  grouping: '',
  year: '',
  trackNumber: '',
  splitChapters: false,
  removeSegments: true,
}

/**
 * docs/product.md#music-downloader: after 'Job Created Successfully' only the link, the artwork
 * and the title are cleared; the album (also one derived from the title: the next title derives
 * it again), artist, grouping, year and track number stay.
 */
export function afterJobCreated(v: MusicFormValues): MusicFormValues {
  return { ...v, videoUrl: '', artworkUrl: '', title: '', splitChapters: false }
}

const isHttpUrl = (value: string) => {
  const url = URL.parse(value.trim())
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:')
}

/** docs/product.md#music-form: a video URL must be a parseable (http or https) URL. */
export const isValidVideoUrl = isHttpUrl

/**
 * docs/product.md#music-form: the video URL is required unless a file is chosen and
 * must be a parseable URL, else 'Invalid Link'; the file is required when the
 * file toggle is on ('Required') and must be audio/mpeg or audio/wav; title,
 * artist and album are required ('Required'); grouping and artwork optional.
 * Lengths come from the server's own schema. Returns the errors by field.
 */
export function validateMusicForm(v: MusicFormValues): MusicFormErrors {
  const errors: MusicFormErrors = {}
  if (v.source === 'file') {
    if (!v.file) errors.file = 'Required'
    else if (!isAcceptedAudio(v.file)) errors.file = FILE_TYPE_ERROR
  } else if (!isValidVideoUrl(v.videoUrl)) {
    errors.videoUrl = 'Invalid Link'
  }
  const parsed = musicJobFields.safeParse({
    video_url: v.source === 'url' ? v.videoUrl : undefined,
    title: v.title,
    artist: v.artist,
    album: v.album,
    grouping: v.grouping,
    year: v.year,
    track_number: v.trackNumber,
  })
  if (!parsed.success) {
    const field: Record<string, MusicFormField> = {
      video_url: 'videoUrl',
      title: 'title',
      artist: 'artist',
      album: 'album',
      grouping: 'grouping',
      year: 'year',
      track_number: 'trackNumber',
    }
    for (const issue of parsed.error.issues) {
      const key = field[String(issue.path[0])]
      if (key && !errors[key]) errors[key] = issue.message
    }
  }
  return errors
}

/** What to do with the artwork URL input (docs/product.md#artwork). */
export type ArtworkSource = { kind: 'none' } | { kind: 'direct'; url: string } | { kind: 'resolve'; url: string }

const DATA_IMAGE = /^data:image\/[a-z0-9.+-]+;base64,/i
const IMAGE_FILE = /\.(jpe?g|png)$/i

/**
 * docs/product.md#artwork: a base64 data image, or a URL ending in .jpg, .jpeg
 * or .png, is used directly; any other parseable (http/https) URL is resolved
 * through GET /api/music/artwork; anything else (empty, not a URL) clears it.
 */
export function classifyArtwork(input: string): ArtworkSource {
  const value = input.trim()
  if (DATA_IMAGE.test(value)) return { kind: 'direct', url: value }
  if (!isHttpUrl(value)) return { kind: 'none' }
  if (IMAGE_FILE.test(value)) return { kind: 'direct', url: value }
  return { kind: 'resolve', url: value }
}

/** docs/product.md#music-jobs: the downloaded file's name is the part after the last slash. */
export function downloadName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}
