import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { limiter } from '../lib/limit.ts'
import { runProcess } from '../lib/process.ts'
import type { Ffmpeg } from '../tools/ffmpeg.ts'
import { type Artwork, ArtworkError } from './artwork.ts'
import { imageSize } from './square.ts'

/**
 * Bounds on artwork (docs/decisions/230-cover-scaling-bounds.md): a small file can hold a
 * huge image (a 105 KB PNG of 6000 × 6000 decodes to 100+ MB in each ffmpeg that reads it).
 * - artwork larger than MAX_ARTWORK_SIDE on a side is scaled down once, when it is stored
 *   (its size read from the header first, nothing decoded when it is small enough);
 * - past MAX_ARTWORK_PIXELS it is refused without being decoded at all;
 * - every scaling of artwork (at intake and getCoverArt's sizes) takes one of COVER_SCALINGS
 *   slots, app-wide, and runs ffmpeg with one thread.
 */
export const MAX_ARTWORK_SIDE = 4096
export const MAX_ARTWORK_PIXELS = 100_000_000
export const COVER_SCALINGS = 2
const slots = limiter(COVER_SCALINGS)
const SCALE_TIMEOUT_MS = 60_000

/** ffmpeg scaling `input` into a JPEG of at most `box` px on each side (aspect kept), in one of the app-wide slots. */
export function scaleToJpeg(ffmpeg: string, input: string, output: string, box: number, signal?: AbortSignal): Promise<boolean> {
  const filter = `scale='min(${box},iw)':'min(${box},ih)':force_original_aspect_ratio=decrease`
  return slots.run(async () => {
    const result = await runProcess(
      [ffmpeg, '-hide_banner', '-nostdin', '-y', '-threads', '1', '-filter_threads', '1', '-i', input, '-vf', filter, '-frames:v', '1', '-q:v', '3', '-f', 'image2', '-c:v', 'mjpeg', output],
      { signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(SCALE_TIMEOUT_MS)]) : AbortSignal.timeout(SCALE_TIMEOUT_MS) },
    )
    return result.code === 0
  })
}

/**
 * The artwork as it is stored: as given when it is at most MAX_ARTWORK_SIDE on each side,
 * else a JPEG scaled down to that (made in `tmpDir`, removed after). Refused (ArtworkError
 * `too large`) past MAX_ARTWORK_PIXELS, or when it needs scaling and there is no ffmpeg.
 */
export async function boundArtwork(ffmpeg: Ffmpeg | null, artwork: Artwork, tmpDir: string, signal?: AbortSignal): Promise<Artwork> {
  const size = imageSize(artwork.bytes)
  if (!size) return artwork
  if (size.width * size.height > MAX_ARTWORK_PIXELS) throw new ArtworkError(`too large (${size.width} × ${size.height} px)`)
  if (size.width <= MAX_ARTWORK_SIDE && size.height <= MAX_ARTWORK_SIDE) return artwork
  if (!ffmpeg) throw new ArtworkError(`too large (${size.width} × ${size.height} px; at most ${MAX_ARTWORK_SIDE} px on a side)`)
  const tag = crypto.randomUUID()
  const input = join(tmpDir, `.artwork-${tag}.${artwork.ext}`)
  const output = join(tmpDir, `.artwork-${tag}.jpg`)
  await writeFile(input, artwork.bytes)
  try {
    if (!(await scaleToJpeg(ffmpeg.path, input, output, MAX_ARTWORK_SIDE, signal))) throw new ArtworkError('not an image ffmpeg can read')
    return { ext: 'jpg', mime: 'image/jpeg', bytes: new Uint8Array(await readFile(output)) }
  } finally {
    await Promise.all([rm(input, { force: true }), rm(output, { force: true })])
  }
}
