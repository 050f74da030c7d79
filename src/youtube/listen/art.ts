import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { AppContext } from '../../context.ts'
import { errorFields, log } from '../../lib/logger.ts'
import { runProcess } from '../../lib/process.ts'
import { guardedFetch } from '../../lib/guarded-fetch.ts'
import { ArtworkError, fetchArtwork } from '../../music/artwork.ts'
import { MAX_ARTWORK_BYTES } from '../../music/schema.ts'

/** An SVG document (an XML prolog or comment may come first). */
const isSvg = (bytes: Uint8Array) => /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(new TextDecoder().decode(bytes.subarray(0, 2048)))

/**
 * The thumbnail's bytes: a JPEG, PNG, WebP or GIF as music artwork is read, or an SVG (the
 * offline demo's channels; ffmpeg rasterises it with librsvg) that music artwork refuses.
 */
async function thumbnailBytes(ctx: AppContext, url: string, signal: AbortSignal): Promise<{ bytes: Uint8Array; svg: boolean }> {
  try {
    return { bytes: (await fetchArtwork(url, ctx.allow, signal)).bytes, svg: false }
  } catch (err) {
    if (!(err instanceof ArtworkError && /not a JPEG/.test(err.message))) throw err
  }
  const res = await guardedFetch(url, { allow: ctx.allow, signal: AbortSignal.any([signal, AbortSignal.timeout(15_000)]), headers: { accept: 'image/svg+xml' } })
  const bytes = new Uint8Array(await res.arrayBuffer())
  if (!res.ok || bytes.length > MAX_ARTWORK_BYTES || !isSvg(bytes)) throw new ArtworkError('thumbnail is not an image ffmpeg reads')
  return { bytes, svg: true }
}

/** Podcast apps (Apple's rules) want square artwork of 1400-3000 px. */
export const ART_SIZE = 1400
const inFlight = new Map<string, Promise<string | null>>()

/**
 * The channel's thumbnail (JPEG, PNG, WebP, GIF or SVG) scaled and padded (black) to a 1400 px square JPEG, made once per
 * thumbnail URL (its hash is in the file name, so a new thumbnail makes new art) under
 * DATA_DIR/audio/art; null when the thumbnail cannot be fetched or read.
 */
export async function channelArt(ctx: AppContext, channelId: string, thumbnail: string, signal: AbortSignal): Promise<string | null> {
  if (!thumbnail) return null
  const dir = join(ctx.env.DATA_DIR, 'audio', 'art')
  const tag = new Bun.CryptoHasher('sha256').update(thumbnail).digest('hex').slice(0, 12)
  const path = join(dir, `${channelId}-${tag}.jpg`)
  if ((await stat(path).catch(() => null))?.isFile()) return path
  const running = inFlight.get(path)
  if (running) return running
  const made = (async () => {
    const ffmpeg = ctx.tools.ffmpeg
    if (!ffmpeg) return null
    await mkdir(dir, { recursive: true, mode: 0o700 })
    const output = `${path}.out-${crypto.randomUUID()}.jpg`
    let input = `${path}.in-${crypto.randomUUID()}`
    try {
      const art = await thumbnailBytes(ctx, thumbnail, signal)
      // ffmpeg reads an SVG by its name
      if (art.svg) input += '.svg'
      await writeFile(input, art.bytes)
      const filter = `scale=${ART_SIZE}:${ART_SIZE}:force_original_aspect_ratio=decrease,pad=${ART_SIZE}:${ART_SIZE}:(ow-iw)/2:(oh-ih)/2:color=black,setsar=1`
      const result = await runProcess(
        [ffmpeg.path, '-hide_banner', '-nostdin', '-y', '-i', input, '-vf', filter, '-frames:v', '1', '-q:v', '3', '-f', 'image2', '-c:v', 'mjpeg', output],
        { signal },
      )
      if (result.code !== 0) return null
      await rename(output, path)
      return path
    } catch (err) {
      log.warn('podcast artwork not made', { channelId, ...errorFields(err) })
      return null
    } finally {
      await Promise.all([rm(input, { force: true }), rm(output, { force: true })])
    }
  })().finally(() => inFlight.delete(path))
  inFlight.set(path, made)
  return made
}
