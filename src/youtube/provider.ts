import { HTTPException } from 'hono/http-exception'
import { fail } from '../lib/errors.ts'
import { errorFields, log } from '../lib/logger.ts'
import { isNoRoute, YOUTUBE_UNREACHABLE } from '../lib/unreachable.ts'
import { YoutubeApiError } from './client.ts'
import { QuotaExhausted } from './quota.ts'

/** Runs provider calls for a request: quota → 503 with Retry-After, provider trouble → 502. */
export async function provider<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (err) {
    if (err instanceof QuotaExhausted) {
      const seconds = Math.max(1, Math.ceil((err.resetsAt.getTime() - Date.now()) / 1000))
      fail(503, `YouTube quota is used up until ${err.resetsAt.toISOString()}.`, { 'Retry-After': String(seconds) })
    }
    if (err instanceof HTTPException) throw err
    log.warn('youtube provider call failed', errorFields(err))
    if (err instanceof YoutubeApiError && err.status === 400) fail(400, 'Channel not found.')
    // no route at all (DNS, refused): the one sentence for it, not "try again later"
    if (!(err instanceof YoutubeApiError) && isNoRoute(err)) fail(502, YOUTUBE_UNREACHABLE)
    fail(502, 'YouTube is unavailable, try again later.')
  }
}
