import { join, resolve, sep } from 'node:path'

/** DATA_DIR/music/<userId>/<jobId>: everything a job owns (upload, artwork, work/, output/). */
export function jobDir(dataDir: string, userId: string, jobId: string): string {
  return resolve(dataDir, 'music', userId, jobId)
}

/** Joins `name` under `dir`, refusing anything that would land outside it. */
export function inside(dir: string, name: string): string {
  const root = resolve(dir)
  const full = resolve(root, name)
  if (!full.startsWith(root + sep)) throw new Error(`path ${name} escapes ${root}`)
  return full
}

const MAX_NAME_BYTES = 180

/**
 * A human-readable file name from tags: `Artist - Title.mp3`. Path separators,
 * control and reserved characters become spaces or are dropped; leading dots
 * go (no hidden files, no `..`); the name is cut at a UTF-8 boundary.
 */
export function mp3Name(artist: string, title: string, trackNumber?: number, ext = 'mp3'): string {
  const clean = (s: string) =>
    s
      .normalize('NFC')
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
      .replace(/[/\\:*?"<>|]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
  let base = [clean(artist), clean(title)].filter(Boolean).join(' - ')
  if (trackNumber) base = `${String(trackNumber).padStart(2, '0')} ${base}`
  base = base.replace(/^[.\s-]+/, '').replace(/[.\s]+$/, '')
  const encoder = new TextEncoder()
  while (encoder.encode(base).length > MAX_NAME_BYTES) base = Array.from(base).slice(0, -1).join('').trimEnd()
  return `${base || 'track'}.${ext}`
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

export type ImageKind = { ext: 'jpg' | 'png' | 'webp' | 'gif'; mime: string }

/** Image type from its bytes (JPEG, PNG, WebP, GIF); null otherwise. */
export function sniffImage(b: Uint8Array): ImageKind | null {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return { ext: 'jpg', mime: 'image/jpeg' }
  if (b.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((v, i) => b[i] === v))
    return { ext: 'png', mime: 'image/png' }
  const ascii = (from: number, to: number) => String.fromCharCode(...b.subarray(from, to))
  if (b.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return { ext: 'webp', mime: 'image/webp' }
  if (b.length >= 6 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) return { ext: 'gif', mime: 'image/gif' }
  return null
}

export const mimeOf = (name: string): string =>
  ({
    mp3: 'audio/mpeg',
    wav: 'audio/wav',
    jpg: 'image/jpeg',
    png: 'image/png',
    webp: 'image/webp',
    gif: 'image/gif',
    zip: 'application/zip',
  })[name.split('.').pop()!.toLowerCase()] ?? 'application/octet-stream'

export const workDir = (dir: string) => join(dir, 'work')
export const outputDir = (dir: string) => join(dir, 'output')
