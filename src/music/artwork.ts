import { guardedFetch } from '../lib/guarded-fetch.ts'
import type { AllowList } from '../lib/url-guard.ts'
import { sniffImage, type ImageKind } from './files.ts'
import { artworkDataUri, MAX_ARTWORK_BYTES } from './schema.ts'

const PAGE_BYTES = 2 * 1024 * 1024
const TIMEOUT_MS = 15_000

export class ArtworkError extends Error {}

/** SoundCloud serves `-large` (100x100) by default; `-t500x500` is the same artwork at 500x500. */
export function soundcloudLarge(url: string): string {
  return url.replace(
    /^(https?:\/\/[^/]*sndcdn\.com\/(?:artworks|avatars)-[^?#]*?)-(?:large|t\d+x\d+|crop|small|badge|tiny|mini|original)(\.(?:jpe?g|png))/i,
    '$1-t500x500$2',
  )
}

const looksLikeImage = (url: URL) => /\.(jpe?g|png)$/i.test(url.pathname)

/** The cover image a page names: og:image, then twitter:image (attributes in any order). */
export function coverFromHtml(html: string, base: string): string | null {
  const metas = html.match(/<meta\b[^>]*>/gi) ?? []
  const attr = (tag: string, name: string) =>
    new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag)?.slice(1).find((v) => v !== undefined)
  for (const key of ['og:image:secure_url', 'og:image', 'og:image:url', 'twitter:image', 'twitter:image:src']) {
    for (const tag of metas) {
      const name = (attr(tag, 'property') ?? attr(tag, 'name'))?.toLowerCase()
      const content = attr(tag, 'content')
      if (name === key && content) {
        try {
          const url = new URL(content.replace(/&amp;/g, '&'), base)
          if (url.protocol === 'http:' || url.protocol === 'https:') return url.toString()
        } catch {
          // try the next one
        }
      }
    }
  }
  return null
}

async function readCapped(res: Response, max: number): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length'))
  if (declared > max) throw new ArtworkError('too large')
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of res.body ?? []) {
    size += chunk.length
    if (size > max) {
      throw new ArtworkError('too large')
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

/**
 * GET /artwork: an image URL as is; a page resolved to its cover image
 * (og:image, twitter:image); SoundCloud artwork at 500x500.
 */
export async function resolveArtwork(raw: string, allow: AllowList, signal?: AbortSignal): Promise<string> {
  const url = new URL(soundcloudLarge(raw))
  if (looksLikeImage(url)) return url.toString()
  const timeout = AbortSignal.timeout(TIMEOUT_MS)
  const res = await guardedFetch(url, {
    allow,
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    headers: { accept: 'text/html,application/xhtml+xml,image/*;q=0.8,*/*;q=0.5' },
  })
  if (!res.ok) {
    await res.body?.cancel()
    throw new ArtworkError(`page answered ${res.status}`)
  }
  const type = res.headers.get('content-type') ?? ''
  if (type.startsWith('image/')) {
    await res.body?.cancel()
    return url.toString()
  }
  if (!/html|xml/i.test(type)) {
    await res.body?.cancel()
    throw new ArtworkError(`not a page or an image (${type})`)
  }
  const html = new TextDecoder().decode(await readCapped(res, PAGE_BYTES).catch(() => new Uint8Array()))
  const cover = coverFromHtml(html, res.url || url.toString())
  if (!cover) throw new ArtworkError('no cover image on the page')
  return soundcloudLarge(cover)
}

export interface Artwork extends ImageKind {
  bytes: Uint8Array
}

/** Bytes of a `data:image/...;base64,` URI, checked to be an image. */
export function decodeArtworkDataUri(uri: string): Artwork {
  const m = artworkDataUri.exec(uri)
  if (!m) throw new ArtworkError('not a base64 image data URI')
  const bytes = Buffer.from(m[2]!.replace(/\s+/g, ''), 'base64')
  if (bytes.length > MAX_ARTWORK_BYTES) throw new ArtworkError('too large')
  const kind = sniffImage(bytes)
  if (!kind) throw new ArtworkError('not an image')
  return { ...kind, bytes }
}

/** Fetches artwork through the guard (a page is resolved to its cover first). */
export async function fetchArtwork(raw: string, allow: AllowList, signal: AbortSignal): Promise<Artwork> {
  const target = await resolveArtwork(raw, allow)
  const res = await guardedFetch(target, {
    allow,
    signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]),
    headers: { accept: 'image/*' },
  })
  if (!res.ok) {
    await res.body?.cancel()
    throw new ArtworkError(`artwork answered ${res.status}`)
  }
  const bytes = await readCapped(res, MAX_ARTWORK_BYTES)
  const kind = sniffImage(bytes)
  if (!kind) throw new ArtworkError('artwork is not a JPEG, PNG, WebP or GIF image')
  return { ...kind, bytes }
}
