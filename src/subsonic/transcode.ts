import type { Ffmpeg } from '../tools/ffmpeg.ts'
import { errorFields, log } from '../lib/logger.ts'

/**
 * Transcoding on the fly for Subsonic `stream` (docs/decisions/263): ffmpeg reads the stored
 * MP3 (from `timeOffset`) and writes MP3 or Opus at the rate asked to the answer as it goes.
 * At most TRANSCODE_CONCURRENCY at once app-wide and one per user; a request beyond the bound
 * gets the stored file as it is (players play it; no one waits, no CPU is queued up).
 */

export type Format = 'mp3' | 'opus'
export interface Wanted {
  format: Format
  /** kbit/s */
  bitRate: number
  offset: number
}

const active = new Set<symbol>()
const byUser = new Set<string>()

/** A slot for the user, or null when the app or the user is at its bound. */
export function takeSlot(userId: string, limit: number): (() => void) | null {
  if (active.size >= limit || byUser.has(userId)) return null
  const slot = Symbol(userId)
  active.add(slot)
  byUser.add(userId)
  let released = false
  return () => {
    if (released) return
    released = true
    active.delete(slot)
    byUser.delete(userId)
  }
}

export const transcodesRunning = () => active.size

const OPUS_DEFAULT = 128
const MP3_RATES = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]

/**
 * What the player asked, against the stored file: null when it is no change (no offset, the
 * stored format, and no rate below the stored one), else the format and rate to make.
 */
export function wantedOf(p: { format?: string; maxBitRate?: number; timeOffset?: number }, storedRate: number | null): Wanted | null {
  const format = p.format === 'opus' ? 'opus' : 'mp3'
  if (p.format === 'raw') return null
  const max = p.maxBitRate && p.maxBitRate > 0 ? p.maxBitRate : null
  const offset = p.timeOffset && p.timeOffset > 0 ? p.timeOffset : 0
  const lower = max !== null && (storedRate === null || max < storedRate)
  if (format === 'mp3' && !lower && !offset) return null
  let bitRate = format === 'opus' ? Math.min(max ?? OPUS_DEFAULT, storedRate ?? OPUS_DEFAULT, 256) : Math.min(max ?? storedRate ?? 320, storedRate ?? 320)
  // LAME takes only the MPEG rates: the highest at or under the asked one
  if (format === 'mp3') bitRate = MP3_RATES.filter((r) => r <= bitRate).pop() ?? 32
  return { format, bitRate: Math.max(6, Math.round(bitRate)), offset }
}

export const contentTypeOf = (f: Format) => (f === 'opus' ? 'audio/ogg' : 'audio/mpeg')

/** ffmpeg's output as the answer's body; the slot is released when ffmpeg ends or the player goes. */
export function transcode(ffmpeg: Ffmpeg, path: string, wanted: Wanted, release: () => void, signal: AbortSignal): Response {
  const args = [ffmpeg.path, '-hide_banner', '-nostdin', '-loglevel', 'error']
  if (wanted.offset) args.push('-ss', String(wanted.offset))
  args.push('-i', path, '-map', '0:a:0', '-vn', '-map_metadata', '-1')
  if (wanted.format === 'opus') args.push('-c:a', 'libopus', '-b:a', `${wanted.bitRate}k`, '-f', 'ogg', 'pipe:1')
  else args.push('-c:a', 'libmp3lame', '-b:a', `${wanted.bitRate}k`, '-f', 'mp3', 'pipe:1')
  const proc = Bun.spawn(args, { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' })
  // the player went away (request aborted or body cancelled): ffmpeg is ended, and neither its
  // exit nor a read racing the cancel is a failure worth a warning
  let stopped = false
  const stop = () => {
    stopped = true
    proc.kill()
  }
  signal.addEventListener('abort', stop, { once: true })
  void proc.exited.then((code) => {
    release()
    signal.removeEventListener('abort', stop)
    if (code !== 0 && !stopped && !signal.aborted) void new Response(proc.stderr).text().then((err) => log.warn('transcode failed', { code, err: err.slice(0, 500) }))
  })
  const reader = proc.stdout.getReader()
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read()
        if (stopped) return
        if (done) controller.close()
        else controller.enqueue(value)
      } catch (err) {
        if (stopped) return
        log.warn('transcode read failed', errorFields(err))
        try {
          controller.close()
        } catch {}
      }
    },
    cancel() {
      stop()
    },
  })
  return new Response(body, { status: 200, headers: { 'Content-Type': contentTypeOf(wanted.format), 'Accept-Ranges': 'none', 'Cache-Control': 'no-store' } })
}
