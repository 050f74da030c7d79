import { guardedFetch } from '../lib/guarded-fetch.ts'
import type { AllowList } from '../lib/url-guard.ts'

/**
 * SponsorBlock segments through the privacy-preserving hash-prefix API
 * (`GET <base>/api/skipSegments/<first 4 hex of sha256(videoId)>?categories=[...]`):
 * the server never learns which video is asked for; we pick ours out of
 * the answer. https://wiki.sponsor.ajay.app/w/API_Docs
 */
export interface SkipSegment {
  category: string
  start: number
  end: number
}

const TIMEOUT_MS = 10_000

/** The video id of a YouTube link (watch, youtu.be, shorts, embed, live, music.youtube.com), else null. */
export function youtubeVideoId(raw: string): string | null {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return null
  }
  const host = url.hostname.toLowerCase().replace(/^(www|m|music)\./, '')
  const id = (s: string | null | undefined) => (s && /^[\w-]{11}$/.test(s) ? s : null)
  if (host === 'youtu.be') return id(url.pathname.split('/')[1])
  if (host !== 'youtube.com' && host !== 'youtube-nocookie.com') return null
  if (url.pathname === '/watch') return id(url.searchParams.get('v'))
  const m = /^\/(?:shorts|embed|live|v)\/([^/?#]+)/.exec(url.pathname)
  return id(m?.[1])
}

export class SponsorBlockUnavailable extends Error {}

/** Segments of `categories` for the video, merged where they overlap; [] when it has none. */
export async function fetchSegments(
  base: string,
  videoId: string,
  categories: string[],
  allow: AllowList,
  signal: AbortSignal,
): Promise<SkipSegment[]> {
  const found = await lookupSegments(base, videoId, categories, ['skip'], allow, signal)
  return mergeSegments(found.map(({ category, start, end }) => ({ category, start, end })))
}

/** Overlapping or touching segments become one (cutting twice would cut too much). */
export function mergeSegments(segments: SkipSegment[]): SkipSegment[] {
  const sorted = [...segments].sort((a, b) => a.start - b.start)
  const merged: SkipSegment[] = []
  for (const s of sorted) {
    const last = merged.at(-1)
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end)
    else merged.push({ ...s })
  }
  return merged
}

/**
 * The segments inside a source of `duration` seconds (null: unknown, all kept): a span past the
 * end is cut short and one wholly past it dropped, so the notice counts only what was removed.
 */
export function clipSegments(segments: SkipSegment[], duration: number | null): SkipSegment[] {
  if (duration === null) return segments
  return segments.map((s) => ({ ...s, start: Math.max(0, s.start), end: Math.min(s.end, duration) })).filter((s) => s.end > s.start)
}

/** "Removed 2 non-music parts (0:21 in all)." — the row tells what the cut took out. */
export function cutNotice(segments: { start: number; end: number }[]): string {
  const seconds = Math.round(segments.reduce((sum, s) => sum + (s.end - s.start), 0))
  const length = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`
  return `Removed ${segments.length} non-music part${segments.length === 1 ? '' : 's'} (${length} in all).`
}

/** A segment as SponsorBlock lists it (its UUID and submitted action kept). */
export interface RawSegment {
  uuid: string
  category: string
  actionType: string
  start: number
  end: number
}

/**
 * The video's segments of `categories` and `actionTypes`, unmerged, looked up by hash prefix as
 * fetchSegments (listen mode and the player: src/youtube/listen/segments.ts).
 */
export async function lookupSegments(
  base: string,
  videoId: string,
  categories: readonly string[],
  actionTypes: readonly string[],
  allow: AllowList,
  signal: AbortSignal,
): Promise<RawSegment[]> {
  const hash = new Bun.CryptoHasher('sha256').update(videoId).digest('hex')
  const url = new URL(`api/skipSegments/${hash.slice(0, 4)}`, base.endsWith('/') ? base : `${base}/`)
  url.searchParams.set('categories', JSON.stringify(categories))
  url.searchParams.set('actionTypes', JSON.stringify(actionTypes))
  let res: Response
  try {
    res = await guardedFetch(url, { allow, signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]), headers: { accept: 'application/json' } })
  } catch (err) {
    signal.throwIfAborted()
    throw new SponsorBlockUnavailable(err instanceof Error ? err.message : String(err))
  }
  if (res.status === 404) {
    await res.body?.cancel()
    return []
  }
  if (!res.ok) {
    await res.body?.cancel()
    throw new SponsorBlockUnavailable(`SponsorBlock answered ${res.status}`)
  }
  let body: unknown
  try {
    body = await res.json()
  } catch {
    throw new SponsorBlockUnavailable('SponsorBlock answered something other than JSON')
  }
  const video = Array.isArray(body) ? (body as { videoID?: string; segments?: unknown[] }[]).find((v) => v.videoID === videoId) : undefined
  return (video?.segments ?? [])
    .map((s) => s as { UUID?: unknown; category?: string; actionType?: string; segment?: unknown[] })
    .filter((s) => categories.includes(s.category ?? '') && actionTypes.includes(s.actionType ?? 'skip') && Array.isArray(s.segment))
    .map((s) => ({ uuid: String(s.UUID ?? ''), category: s.category!, actionType: s.actionType ?? 'skip', start: Number(s.segment![0]), end: Number(s.segment![1]) }))
    .filter((s) => Number.isFinite(s.start) && Number.isFinite(s.end) && s.end > s.start)
    .sort((a, b) => a.start - b.start)
}
