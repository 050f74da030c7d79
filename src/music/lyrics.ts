import type { AppContext } from '../context.ts'
import { guardedFetch } from '../lib/guarded-fetch.ts'
import { errorFields, log } from '../lib/logger.ts'
import { lyricsText, parseLyricsText, readLyrics } from '../subsonic/lyrics.ts'
import { fail } from '../lib/errors.ts'
import { updateMusicJob } from './queries.ts'
import type { MusicJobRow } from './tables.ts'

/**
 * A finished track's lyrics (docs/decisions/266): its file's own USLT/SYLT tags, else one
 * look-up at LYRICS_URL (LRCLIB's `GET /api/get`) by artist, title, album and duration. The
 * service's text is untrusted: bounded in size and cleaned line by line. A look-up that fails,
 * times out or finds nothing leaves the track without lyrics; it never fails the job.
 */
export interface KeptLyrics {
  lyrics: string
  lyricsSource: 'file' | 'lookup'
}

const LOOKUP_TIMEOUT_MS = 10_000
const MAX_BYTES = 256 * 1024

/** LRCLIB's answer (https://lrclib.net/docs), the fields read here. */
interface LrclibTrack {
  instrumental?: boolean
  plainLyrics?: string | null
  syncedLyrics?: string | null
}

/** `file` is the finished MP3, `source` what it was made from (an upload's own USLT/SYLT tags count as the file's). */
export async function findLyrics(ctx: Pick<AppContext, 'env' | 'allow'>, row: MusicJobRow, file: string, source: string, signal: AbortSignal): Promise<KeptLyrics | null> {
  for (const path of [file, source]) {
    const [own] = await readLyrics(path)
    if (own) return { lyrics: lyricsText(own), lyricsSource: 'file' }
  }
  if (ctx.env.LYRICS_URL === 'off') return null
  try {
    const duration = (await (await import('music-metadata')).parseFile(file, { duration: true, skipCovers: true })).format.duration
    const text = await lookUp(ctx, { artist: row.artist, title: row.title, album: row.album, duration }, signal)
    return text ? { lyrics: text, lyricsSource: 'lookup' } : null
  } catch (err) {
    signal.throwIfAborted()
    log.warn('lyrics look-up failed, the track has none', { id: row.id, ...errorFields(err) })
    return null
  }
}

async function lookUp(
  ctx: Pick<AppContext, 'env' | 'allow'>,
  q: { artist: string; title: string; album: string; duration: number | undefined },
  signal: AbortSignal,
): Promise<string | null> {
  const url = new URL('api/get', ctx.env.LYRICS_URL.endsWith('/') ? ctx.env.LYRICS_URL : `${ctx.env.LYRICS_URL}/`)
  url.searchParams.set('artist_name', q.artist)
  url.searchParams.set('track_name', q.title)
  url.searchParams.set('album_name', q.album)
  if (q.duration) url.searchParams.set('duration', String(Math.round(q.duration)))
  const res = await guardedFetch(url, {
    allow: ctx.allow,
    signal: AbortSignal.any([signal, AbortSignal.timeout(LOOKUP_TIMEOUT_MS)]),
    headers: { accept: 'application/json', 'user-agent': 'Tunefeed (https://github.com/tunefeed)' },
  })
  if (res.status === 404) {
    await res.body?.cancel()
    return null
  }
  if (!res.ok) {
    await res.body?.cancel()
    throw new Error(`lyrics service answered ${res.status}`)
  }
  const body = await res.arrayBuffer()
  if (body.byteLength > MAX_BYTES) throw new Error('lyrics answer too large')
  const found = JSON.parse(new TextDecoder().decode(body)) as LrclibTrack
  if (found.instrumental) return null
  const raw = typeof found.syncedLyrics === 'string' && found.syncedLyrics.trim() ? found.syncedLyrics : found.plainLyrics
  if (typeof raw !== 'string' || !raw.trim()) return null
  // kept as parsed (cleaned, bounded) and written back: what is served is what was checked
  const parsed = parseLyricsText(raw)
  return parsed.lines.some((l) => l.value) ? lyricsText(parsed) : null
}

/**
 * PATCH /jobs/{id} `lyrics`: plain text or LRC kept as the person wrote it (cleaned, bounded),
 * source `edited`; an empty text removes them. Only a finished job has a song to carry them.
 */
export async function setJobLyrics(ctx: Pick<AppContext, 'db'>, row: MusicJobRow, text: string): Promise<MusicJobRow> {
  if (!row.completed || !row.outputFile) fail(409, 'Job is not finished.')
  const parsed = text.trim() ? parseLyricsText(text.trim()) : null
  const lyrics = parsed?.lines.some((l) => l.value) ? lyricsText(parsed) : null
  const values = { lyrics, lyricsSource: lyrics ? ('edited' as const) : null }
  await updateMusicJob(ctx.db, row.id, values)
  return { ...row, ...values }
}
