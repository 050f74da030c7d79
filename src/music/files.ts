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

// shared with the web form, which checks a chosen file the same way before it is sent
export { type AudioKind, sniffAudio } from './schema.ts'

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
