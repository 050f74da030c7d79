import type { Db } from '../db/client.ts'
import { log } from '../lib/logger.ts'
import { parseChannelPage, parseFeed, type FeedEntry } from './public-pages.ts'
import { QuotaExhausted, markExhausted, quotaResetAt, refundUnits, reserveUnits } from './quota.ts'
import type { VideoKind } from './tables.ts'

/**
 * Typed client for the YouTube Data API v3 and the channels' public Atom
 * feeds. Only the base URLs differ between the real service and the fake one
 * in scripts/fake-youtube.ts. Every list call costs 1 unit (search.list, at
 * 100, is never used); units are reserved in the ledger before each call.
 */
export interface ApiChannel {
  id: string
  title: string
  /** `@handle`, lower-cased, or null. */
  handle: string | null
  thumbnail: string
  uploadsPlaylistId: string | null
}

export interface ApiVideo {
  id: string
  channelId: string
  title: string
  description: string
  thumbnail: string
  publishedAt: Date
  categoryId: number
  duration: number
  kind: VideoKind
}

export interface PlaylistPage {
  items: { videoId: string; publishedAt: Date | null }[]
  nextPageToken: string | null
}

export interface SubscriptionPage {
  items: { channelId: string; title: string; thumbnail: string }[]
  nextPageToken: string | null
}

/** The API answered with an error other than quota (404 playlistNotFound, 403 subscriptionForbidden, ...). */
export class YoutubeApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(`YouTube API ${status} ${reason}: ${message}`)
    this.name = 'YoutubeApiError'
  }
}

export interface YoutubeClientOptions {
  apiUrl: string
  feedUrl: string
  apiKey: string
  db: Db
  /** Daily unit budget (YOUTUBE_DAILY_QUOTA). */
  budget: number
  /** Retries after the first attempt on network errors and 5xx. */
  retries?: number
  /** First backoff; doubles each retry. */
  retryBaseMs?: number
  timeoutMs?: number
  signal?: AbortSignal
}

export const PAGE_SIZE = 50
const QUOTA_REASONS = new Set(['quotaExceeded', 'dailyLimitExceeded'])

type Json = Record<string, any>

function pickThumbnail(thumbnails: Json | undefined): string {
  if (!thumbnails) return ''
  for (const size of ['high', 'medium', 'default', 'standard', 'maxres']) {
    const url = thumbnails[size]?.url
    if (typeof url === 'string') return url
  }
  return ''
}

/** ISO-8601 duration (`PT1H2M3S`, `P1DT2H`, `P0D`) in seconds. */
export function parseDuration(value: unknown): number {
  if (typeof value !== 'string') return 0
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(value)
  if (!m) return 0
  const [, d, h, min, s] = m
  return Math.round(Number(d ?? 0) * 86400 + Number(h ?? 0) * 3600 + Number(min ?? 0) * 60 + Number(s ?? 0))
}

function toChannel(item: Json): ApiChannel {
  const custom = item.snippet?.customUrl
  return {
    id: String(item.id),
    title: String(item.snippet?.title ?? ''),
    handle: typeof custom === 'string' && custom.startsWith('@') ? custom.toLowerCase() : null,
    thumbnail: pickThumbnail(item.snippet?.thumbnails),
    uploadsPlaylistId: item.contentDetails?.relatedPlaylists?.uploads ?? null,
  }
}

function toVideo(item: Json): ApiVideo | null {
  const s = item.snippet
  if (!s || typeof item.id !== 'string') return null
  const publishedAt = new Date(s.publishedAt)
  if (Number.isNaN(publishedAt.getTime())) return null
  return {
    id: item.id,
    channelId: String(s.channelId),
    title: String(s.title ?? ''),
    description: String(s.description ?? ''),
    thumbnail: pickThumbnail(s.thumbnails),
    publishedAt,
    categoryId: Number.parseInt(s.categoryId, 10) || 0,
    duration: parseDuration(item.contentDetails?.duration),
    // Shorts are told apart by the channel's Shorts playlist, in the refresh
    kind: s.liveBroadcastContent === 'live' ? 'live' : s.liveBroadcastContent === 'upcoming' ? 'upcoming' : 'video',
  }
}

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size))
  return out
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => {
      clearTimeout(timer)
      reject(signal.reason)
    })
  })

export function createYoutubeClient(opts: YoutubeClientOptions) {
  const apiUrl = opts.apiUrl.replace(/\/+$/, '')
  const feedUrl = opts.feedUrl.replace(/\/+$/, '')
  const retries = opts.retries ?? 3
  const retryBaseMs = opts.retryBaseMs ?? 500
  const timeoutMs = opts.timeoutMs ?? 15_000

  /** One API call of 1 unit, with the ledger, retries and error mapping. */
  async function call(resource: string, params: Record<string, string | undefined>): Promise<Json> {
    const url = new URL(`${apiUrl}/${resource}`)
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v)
    if (opts.apiKey) url.searchParams.set('key', opts.apiKey)
    for (let attempt = 0; ; attempt++) {
      opts.signal?.throwIfAborted()
      await reserveUnits(opts.db, 1, opts.budget)
      let res: Response
      try {
        const signal = opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs)
        res = await fetch(url, { signal, headers: { accept: 'application/json' } })
      } catch (err) {
        // the request may never have reached the API: give the unit back
        await refundUnits(opts.db, 1)
        if (opts.signal?.aborted || attempt >= retries) throw err
        log.warn('youtube api network error, retrying', { resource, attempt: attempt + 1, error: String(err) })
        await sleep(retryBaseMs * 2 ** attempt, opts.signal)
        continue
      }
      const body = (await res.json().catch(() => null)) as Json | null
      if (res.ok && body) return body
      const reason: string = body?.error?.errors?.[0]?.reason ?? body?.error?.status ?? (res.ok ? 'badBody' : 'unknown')
      const message: string = body?.error?.message ?? res.statusText
      if (res.status === 403 && QUOTA_REASONS.has(reason)) {
        // a refused call is not charged; the day stops here
        await refundUnits(opts.db, 1)
        const cause = await markExhausted(opts.db, `YouTube answered ${reason}.`)
        throw new QuotaExhausted(cause, quotaResetAt())
      }
      if ((res.status >= 500 || res.ok) && attempt < retries) {
        log.warn('youtube api error, retrying', { resource, status: res.status, attempt: attempt + 1 })
        await sleep(retryBaseMs * 2 ** attempt, opts.signal)
        continue
      }
      throw new YoutubeApiError(res.status, reason, message)
    }
  }

  /** A list call by id with snippet and contentDetails, 50 ids per unit; items `read` turns to null are left out. */
  async function byIds<T>(resource: string, ids: string[], read: (item: Json) => T | null): Promise<T[]> {
    const out: T[] = []
    for (const batch of chunks([...new Set(ids)], PAGE_SIZE)) {
      const body = await call(resource, {
        part: 'snippet,contentDetails',
        id: batch.join(','),
        maxResults: String(PAGE_SIZE),
      })
      for (const item of body.items ?? []) {
        const value = read(item)
        if (value) out.push(value)
      }
    }
    return out
  }

  return {
    /** channels.list by id, 50 ids per unit; unknown ids are simply absent. Without a key: their public pages, 4 at a time. */
    async channelsById(ids: string[]): Promise<ApiChannel[]> {
      if (opts.apiKey) return byIds('channels', ids, toChannel)
      const out: ApiChannel[] = []
      for (const batch of chunks([...new Set(ids)], 4)) {
        for (const c of await Promise.all(batch.map((id) => this.channelPage(id)))) if (c?.id && batch.includes(c.id)) out.push(c)
      }
      return out
    },

    /** channels.list with forHandle; null when no channel has it. Without a key: its public page. */
    async channelByHandle(handle: string): Promise<ApiChannel | null> {
      if (!opts.apiKey) return this.channelPage(handle.startsWith('@') ? handle : `@${handle}`)
      const body = await call('channels', {
        part: 'snippet,contentDetails',
        forHandle: handle.startsWith('@') ? handle : `@${handle}`,
      })
      const item = body.items?.[0]
      return item ? toChannel(item) : null
    },

    /** One page of playlistItems.list (uploads are listed newest first). */
    async playlistItems(playlistId: string, pageToken?: string): Promise<PlaylistPage> {
      const body = await call('playlistItems', {
        part: 'contentDetails',
        playlistId,
        maxResults: String(PAGE_SIZE),
        pageToken,
      })
      return {
        items: (body.items ?? [])
          .map((item: Json) => {
            const videoId = item.contentDetails?.videoId ?? item.snippet?.resourceId?.videoId
            const at = item.contentDetails?.videoPublishedAt ?? item.snippet?.publishedAt
            const publishedAt = at ? new Date(at) : null
            return { videoId, publishedAt: publishedAt && !Number.isNaN(publishedAt.getTime()) ? publishedAt : null }
          })
          .filter((i: { videoId: unknown }) => typeof i.videoId === 'string'),
        nextPageToken: body.nextPageToken ?? null,
      }
    },

    /** videos.list with snippet and contentDetails, 50 ids per unit; private or deleted ones are absent. */
    async videos(ids: string[]): Promise<ApiVideo[]> {
      return byIds('videos', ids, toVideo)
    },

    /** One page of a channel's public subscriptions (403 subscriptionForbidden when private). */
    async subscriptions(channelId: string, pageToken?: string): Promise<SubscriptionPage> {
      const body = await call('subscriptions', {
        part: 'snippet',
        channelId,
        maxResults: String(PAGE_SIZE),
        order: 'alphabetical',
        pageToken,
      })
      return {
        items: (body.items ?? [])
          .map((item: Json) => ({
            channelId: item.snippet?.resourceId?.channelId,
            title: String(item.snippet?.title ?? ''),
            thumbnail: pickThumbnail(item.snippet?.thumbnails),
          }))
          .filter((i: { channelId: unknown }) => typeof i.channelId === 'string'),
        nextPageToken: body.nextPageToken ?? null,
      }
    },

    async videoCategories(regionCode = 'US'): Promise<{ id: number; name: string; assignable: boolean }[]> {
      const body = await call('videoCategories', { part: 'snippet', regionCode })
      return (body.items ?? [])
        .map((item: Json) => ({
          id: Number.parseInt(item.id, 10),
          name: String(item.snippet?.title ?? ''),
          assignable: item.snippet?.assignable !== false,
        }))
        .filter((c: { id: number; name: string }) => Number.isInteger(c.id) && c.name)
    },

    /** The channel's public Atom feed (latest 15 uploads); free of quota. Throws on any failure. */
    async feed(channelId: string): Promise<FeedEntry[]> {
      return parseFeed(await publicPage(`/feeds/videos.xml?channel_id=${encodeURIComponent(channelId)}`))
    },

    /** A channel from its public page (`UC...` id or `@handle`); free of quota; null when there is none. */
    async channelPage(ref: string): Promise<ApiChannel | null> {
      const path = ref.startsWith('@') ? `/${encodeURIComponent(ref).replace('%40', '@')}` : `/channel/${encodeURIComponent(ref)}`
      try {
        return parseChannelPage(await publicPage(path))
      } catch (err) {
        if (err instanceof YoutubeApiError && err.status === 404) return null
        throw err
      }
    },
  }

  /** A page under the feed base (no key, no quota); throws on any answer but 200. */
  async function publicPage(path: string): Promise<string> {
    const signal = opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs)
    const res = await fetch(`${feedUrl}${path}`, { signal })
    if (!res.ok) throw new YoutubeApiError(res.status, 'publicPage', `${path.split('?')[0]} answered ${res.status}`)
    return res.text()
  }
}

export type YoutubeClient = ReturnType<typeof createYoutubeClient>

/** The client configured from the app's settings. */
export function youtubeClientFor(ctx: { db: Db; env: YoutubeEnv }, signal?: AbortSignal): YoutubeClient {
  return createYoutubeClient({
    apiUrl: ctx.env.YOUTUBE_API_URL,
    feedUrl: ctx.env.YOUTUBE_FEED_URL,
    apiKey: ctx.env.YOUTUBE_API_KEY,
    db: ctx.db,
    budget: ctx.env.YOUTUBE_DAILY_QUOTA,
    retryBaseMs: ctx.env.YOUTUBE_RETRY_BASE_MS,
    signal,
  })
}

export interface YoutubeEnv {
  YOUTUBE_API_URL: string
  YOUTUBE_FEED_URL: string
  YOUTUBE_API_KEY: string
  YOUTUBE_DAILY_QUOTA: number
  YOUTUBE_RETRY_BASE_MS: number
}

/**
 * `api` with a YouTube API key; `feed` without one: channels come from their
 * public pages and videos from their Atom feeds, spending no quota (docs/decisions/091).
 */
export function youtubeMode(env: Pick<YoutubeEnv, 'YOUTUBE_API_KEY'>): 'api' | 'feed' {
  return env.YOUTUBE_API_KEY ? 'api' : 'feed'
}
