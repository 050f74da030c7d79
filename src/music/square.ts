import { readFile, rm, writeFile } from 'node:fs/promises'
import { cropSquare, type Ffmpeg } from '../tools/ffmpeg.ts'
import type { Artwork } from './artwork.ts'
import { inside } from './files.ts'

/** Width and height from a PNG, JPEG, GIF or WebP header; null for anything else (left as is). */
export function imageSize(b: Uint8Array): { width: number; height: number } | null {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength)
  const ascii = (from: number, to: number) => String.fromCharCode(...b.subarray(from, to))
  if (b.length >= 30 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') {
    const chunk = ascii(12, 16)
    if (chunk === 'VP8 ') return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff }
    if (chunk === 'VP8L') {
      const bits = view.getUint32(21, true)
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 }
    }
    if (chunk === 'VP8X') return { width: 1 + (view.getUint32(24, true) & 0xffffff), height: 1 + (view.getUint32(27, true) & 0xffffff) }
    return null
  }
  if (b.length >= 24 && b[0] === 0x89 && b[1] === 0x50) return { width: view.getUint32(16), height: view.getUint32(20) }
  if (b.length >= 10 && b[0] === 0x47 && b[1] === 0x49) return { width: view.getUint16(6, true), height: view.getUint16(8, true) }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    // walk the segments to the first start-of-frame marker (C0-CF but C4, C8, CC)
    for (let i = 2; i + 9 < b.length; ) {
      if (b[i] !== 0xff) return null
      const marker = b[i + 1]!
      if (marker === 0xff) {
        i++
        continue
      }
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: view.getUint16(i + 5), width: view.getUint16(i + 7) }
      }
      if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7)) {
        i += 2
        continue
      }
      i += 2 + view.getUint16(i + 2)
    }
  }
  return null
}

/**
 * A cover is square: a video thumbnail (16:9) or any other wide or tall
 * image is centre-cropped by ffmpeg into a JPEG; a square one is kept byte
 * for byte.
 */
export async function squareArtwork(ffmpeg: Ffmpeg | null, artwork: Artwork, work: string, signal: AbortSignal): Promise<Artwork> {
  const size = imageSize(artwork.bytes)
  if (!size || size.width === size.height) return artwork
  const input = inside(work, `cover-in.${artwork.ext}`)
  const output = inside(work, 'cover-square.jpg')
  await writeFile(input, artwork.bytes)
  try {
    // a cover ffmpeg cannot read stays as it was rather than costing the track
    if (!(await cropSquare(ffmpeg, input, output, signal))) return artwork
    return { ext: 'jpg', mime: 'image/jpeg', bytes: new Uint8Array(await readFile(output)) }
  } finally {
    await Promise.all([rm(input, { force: true }), rm(output, { force: true })])
  }
}
