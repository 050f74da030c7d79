import { inArray, sql } from 'drizzle-orm'
import type { AppContext } from '../../context.ts'
import { guardedFetch } from '../../lib/guarded-fetch.ts'
import { errorFields, log } from '../../lib/logger.ts'
import { getDearrowMode } from './dearrow-settings.ts'
import type { DearrowMode } from './schema.ts'
import { youtubeDearrowCache } from './tables.ts'

// DeArrow (docs/decisions/252): crowd-sourced titles and thumbnails, looked up by the first 4 hex
// characters of the SHA-256 of the video id (the branding API never sees the id), cached. Only the
// thumbnail service is given the id, and only for users who chose `titles_thumbnails`.

export interface DearrowJson {
  /** DeArrow's title, its auto-format markers removed; null when the best title is the original. */
  title: string | null
  /** A same-origin URL of DeArrow's thumbnail (the server fetches it); null unless one was submitted and thumbnails are on. */
  thumbnail: string | null
}

/** How long a branding look-up is kept: titles are voted on mostly in a video's first days. */
export const DEARROW_TTL_MS = 4 * 60 * 60 * 1000
/** After DeArrow could not be reached, no look-up for this long (a feed page must not wait on it each time). */
const BACKOFF_MS = 60_000
const TIMEOUT_MS = 4000
/** Look-ups at once for one page of videos. */
const CONCURRENCY = 6

export const hashPrefix = (videoId: string) => new Bun.CryptoHasher('sha256').update(videoId).digest('hex').slice(0, 4)

interface BrandingEntry {
  titles?: { title?: unknown; original?: unknown; votes?: unknown; locked?: unknown }[]
  thumbnails?: { timestamp?: unknown; original?: unknown; votes?: unknown; locked?: unknown }[]
}

/** DeArrow's rule: the first entry that is locked or has votes ≥ 0 (the list comes best first). */
const chosen = <T extends { votes?: unknown; locked?: unknown }>(list: T[] | undefined): T | undefined =>
  Array.isArray(list) ? list.find((e) => e && (e.locked === true || (typeof e.votes === 'number' && e.votes >= 0))) : undefined

/** `>` before a word tells DeArrow's auto-formatter to leave that word as typed; clients remove it when showing the title. */
export const stripFormatMarkers = (title: string) => title.replace(/(^|\s)>(?=\S)/g, '$1').trim()

/** What DeArrow's answer says about one video: its title (null: original) and thumbnail time (null: none). */
export function brandingOf(entry: BrandingEntry | undefined): { title: string | null; thumbnailTime: number | null } {
  const t = chosen(entry?.titles)
  const th = chosen(entry?.thumbnails)
  const title = t && t.original !== true && typeof t.title === 'string' ? stripFormatMarkers(t.title) || null : null
  const thumbnailTime = th && th.original !== true && typeof th.timestamp === 'number' && Number.isFinite(th.timestamp) && th.timestamp >= 0 ? th.timestamp : null
  return { title, thumbnailTime }
}

let downUntil = 0

async function lookUpPrefix(ctx: AppContext, prefix: string, signal: AbortSignal): Promise<Record<string, BrandingEntry> | null> {
  const base = ctx.env.DEARROW_URL
  const url = new URL(`api/branding/${prefix}`, base.endsWith('/') ? base : `${base}/`)
  try {
    const res = await guardedFetch(url, { allow: ctx.allow, signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]), headers: { accept: 'application/json' } })
    // 404: nothing submitted for any video of this prefix
    if (res.status === 404) {
      await res.body?.cancel()
      return {}
    }
    if (!res.ok) throw new Error(`DeArrow answered ${res.status}`)
    const body = (await res.json()) as unknown
    return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, BrandingEntry>) : {}
  } catch (err) {
    downUntil = Date.now() + BACKOFF_MS
    log.warn('DeArrow unavailable', errorFields(err))
    return null
  }
}

type Cached = { title: string | null; thumbnailTime: number | null }

/** The branding of `ids` (from the cache, else looked up by prefix and cached); an id missing from the map: unknown (DeArrow down). */
export async function brandings(ctx: AppContext, ids: string[], signal: AbortSignal = new AbortController().signal): Promise<Map<string, Cached>> {
  const out = new Map<string, Cached>()
  if (!ids.length) return out
  const c = youtubeDearrowCache
  const cached = await ctx.db
    .select({ videoId: c.videoId, title: c.title, thumbnailTime: c.thumbnailTime })
    .from(c)
    .where(sql`${inArray(c.videoId, ids)} and ${c.fetchedAt} > now() - make_interval(secs => ${DEARROW_TTL_MS / 1000})`)
  for (const r of cached) out.set(r.videoId, { title: r.title, thumbnailTime: r.thumbnailTime })
  const missing = ids.filter((id) => !out.has(id))
  if (!missing.length || Date.now() < downUntil) return out
  const byPrefix = new Map<string, string[]>()
  for (const id of missing) byPrefix.set(hashPrefix(id), [...(byPrefix.get(hashPrefix(id)) ?? []), id])
  const prefixes = [...byPrefix.keys()]
  const found: { videoId: string; title: string | null; thumbnailTime: number | null }[] = []
  for (let i = 0; i < prefixes.length; i += CONCURRENCY) {
    await Promise.all(
      prefixes.slice(i, i + CONCURRENCY).map(async (prefix) => {
        const answer = Date.now() < downUntil ? null : await lookUpPrefix(ctx, prefix, signal)
        if (!answer) return
        for (const id of byPrefix.get(prefix)!) {
          const b = brandingOf(Object.hasOwn(answer, id) ? answer[id] : undefined)
          out.set(id, b)
          found.push({ videoId: id, ...b })
        }
      }),
    )
  }
  if (found.length) {
    await ctx.db
      .insert(c)
      .values(found)
      .onConflictDoUpdate({ target: c.videoId, set: { title: sql`excluded.title`, thumbnailTime: sql`excluded.thumbnail_time`, fetchedAt: sql`now()` } })
  }
  return out
}

export const dearrowThumbnailPath = (videoId: string, time: number) => `/api/youtube/videos/${videoId}/dearrow-thumbnail?t=${time}`

/** Adds `dearrow` to each video (null with the mode off, when DeArrow has nothing or is down). */
export async function withDearrow<V extends { id: string }>(
  ctx: AppContext,
  userId: string,
  videos: V[],
  mode?: DearrowMode,
): Promise<(V & { dearrow: DearrowJson | null })[]> {
  const m = mode ?? (await getDearrowMode(ctx.db, userId))
  if (m === 'off' || !videos.length) return videos.map((v) => ({ ...v, dearrow: null }))
  const found = await brandings(ctx, [...new Set(videos.map((v) => v.id))])
  return videos.map((v) => {
    const b = found.get(v.id)
    const thumbnail = m === 'titles_thumbnails' && b?.thumbnailTime != null ? dearrowThumbnailPath(v.id, b.thumbnailTime) : null
    return { ...v, dearrow: b && (b.title || thumbnail) ? { title: b.title, thumbnail } : null }
  })
}

/** Tests: forget that DeArrow was down. */
export function resetDearrowBackoff() {
  downUntil = 0
}
