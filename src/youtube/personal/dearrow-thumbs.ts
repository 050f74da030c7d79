import type { AppContext } from '../../context.ts'
import { guardedFetch } from '../../lib/guarded-fetch.ts'
import { errorFields, log } from '../../lib/logger.ts'

// DeArrow thumbnails, fetched by the server from DEARROW_THUMB_URL (which needs the video id) and
// served same-origin, so the browser never talks to DeArrow. Kept in memory, most recently used
// first (docs/decisions/252): they are small, and a restart only costs fetching them again.

const MAX_ENTRIES = 300
const MAX_BYTES = 1024 * 1024
const TIMEOUT_MS = 10_000

export interface Thumb {
  body: Uint8Array<ArrayBuffer>
  type: string
}

const cache = new Map<string, Thumb>()

/** The image for `videoId` at `time` seconds, or null when the service has none (yet) or cannot be reached. */
export async function dearrowThumbnail(ctx: AppContext, videoId: string, time: number): Promise<Thumb | null> {
  const key = `${videoId}@${time}`
  const hit = cache.get(key)
  if (hit) {
    cache.delete(key)
    cache.set(key, hit)
    return hit
  }
  const base = ctx.env.DEARROW_THUMB_URL
  const url = new URL('api/v1/getThumbnail', base.endsWith('/') ? base : `${base}/`)
  url.searchParams.set('videoID', videoId)
  url.searchParams.set('time', String(time))
  try {
    const res = await guardedFetch(url, { allow: ctx.allow, signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: 'image/*' } })
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim()
    // the service answers 204 (or an error) while it is still making the image
    if (res.status !== 200 || !/^image\/(webp|jpeg|png|avif)$/.test(type)) {
      await res.body?.cancel()
      return null
    }
    const body = new Uint8Array(await res.arrayBuffer()) as Uint8Array<ArrayBuffer>
    if (!body.length || body.length > MAX_BYTES) return null
    const thumb = { body, type }
    cache.set(key, thumb)
    if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!)
    return thumb
  } catch (err) {
    log.warn('DeArrow thumbnail unavailable', errorFields(err))
    return null
  }
}

/** Tests. */
export function clearDearrowThumbnails() {
  cache.clear()
}
