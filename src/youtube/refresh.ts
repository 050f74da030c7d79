import type { AppContext } from '../context.ts'
import { errorFields, log } from '../lib/logger.ts'
import { topics } from '../ws/hub.ts'
import { YoutubeApiError, youtubeClientFor, youtubeMode, type ApiVideo, type YoutubeClient } from './client.ts'
import { feedVideo, type FeedEntry } from './public-pages.ts'
import { QuotaExhausted } from './quota.ts'
import { followers, getChannel, upsertChannels } from './queries/channels.ts'
import { claimRefresh, heartbeatRefresh, releaseRefresh, resetRefreshes } from './queries/refresh-lease.ts'
import { insertVideos, knownVideoIds, streamVideoIds, updateVideoKinds, upsertCategories } from './queries/videos.ts'
import { youtubeChannels } from './tables.ts'
import { eq, sql } from 'drizzle-orm'

/** What a refresh needs from the app: the database, settings and the hub. */
export type YoutubeCtx = Pick<AppContext, 'db' | 'env' | 'hub'>

export type RefreshOutcome =
  | { status: 'done'; added: number; via: 'feed' | 'api' }
  | { status: 'busy' }
  | { status: 'gone' }
  | { status: 'quota'; resetsAt: Date; reason: string }

const FEED_SIZE = 15
const HEARTBEAT_MS = 20_000

/** Tells every user following the channel that its refresh started or ended. */
export async function announce(ctx: YoutubeCtx, channelId: string, updating: boolean): Promise<void> {
  for (const userId of await followers(ctx.db, channelId)) {
    ctx.hub.publish(topics.channels(userId), { id: channelId, updating })
  }
}

/** Start-up: no refresh survives its process, so none may stay `updating`. */
export async function resetStuckRefreshes(ctx: YoutubeCtx, opts: { staleOnly?: boolean } = {}): Promise<string[]> {
  const ids = await resetRefreshes(ctx.db, opts)
  for (const id of ids) await announce(ctx, id, false)
  if (ids.length) log.warn('cleared stuck channel refreshes', { channels: ids.length })
  return ids
}

/**
 * The ids of uploads not stored yet, newest first. Without `dateAfter` the
 * free Atom feed is tried first: when it shows a known video (or the whole
 * channel, under 15 uploads) its unknown ids are all that is new, at no API
 * cost. Otherwise the uploads playlist is paged (1 unit per 50), stopping at
 * the first known video, or with `dateAfter` at the first older one.
 */
async function newUploadIds(
  ctx: YoutubeCtx,
  client: YoutubeClient,
  channel: { id: string; uploadsPlaylistId: string | null; refreshedAt: Date | null },
  dateAfter: Date | undefined,
): Promise<{ ids: string[]; via: 'feed' | 'api'; entries?: FeedEntry[] }> {
  if (youtubeMode(ctx.env) === 'feed') {
    // without a key the feed is all there is: its latest 15, then each new one
    const entries = await client.feed(channel.id)
    const known = await knownVideoIds(ctx.db, entries.map((e) => e.videoId))
    const fresh = entries.filter((e) => !known.has(e.videoId) && (!dateAfter || e.publishedAt >= dateAfter))
    return { ids: fresh.map((e) => e.videoId), via: 'feed', entries }
  }
  if (ctx.env.YOUTUBE_USE_FEED && !dateAfter) {
    try {
      const entries = await client.feed(channel.id)
      const known = await knownVideoIds(ctx.db, entries.map((e) => e.videoId))
      const unknown = entries.filter((e) => !known.has(e.videoId)).map((e) => e.videoId)
      if (entries.length < FEED_SIZE || unknown.length < entries.length) return { ids: unknown, via: 'feed', entries }
    } catch (err) {
      log.warn('youtube feed failed, using the API', { channelId: channel.id, ...errorFields(err) })
    }
  }
  let playlistId = channel.uploadsPlaylistId
  if (!playlistId) {
    const [found] = await client.channelsById([channel.id])
    if (!found) return { ids: [], via: 'api' }
    await upsertChannels(ctx.db, [found])
    playlistId = found.uploadsPlaylistId
    if (!playlistId) return { ids: [], via: 'api' }
  }
  // a first refresh without a date reaches back a bounded number of videos
  const limit = dateAfter || channel.refreshedAt ? Number.POSITIVE_INFINITY : ctx.env.YOUTUBE_BACKFILL_VIDEOS
  const ids: string[] = []
  let pageToken: string | undefined
  for (;;) {
    let page
    try {
      page = await client.playlistItems(playlistId, pageToken)
    } catch (err) {
      // an empty channel's uploads playlist may not exist at all
      if (err instanceof YoutubeApiError && err.status === 404) return { ids, via: 'api' }
      throw err
    }
    const known = await knownVideoIds(
      ctx.db,
      page.items.map((i) => i.videoId),
    )
    for (const item of page.items) {
      if (dateAfter && item.publishedAt && item.publishedAt < dateAfter) return { ids, via: 'api' }
      if (known.has(item.videoId)) {
        if (!dateAfter) return { ids, via: 'api' }
        continue
      }
      ids.push(item.videoId)
      if (ids.length >= limit) return { ids, via: 'api' }
    }
    if (!page.nextPageToken) return { ids, via: 'api' }
    pageToken = page.nextPageToken
  }
}

/**
 * The new uploads' details, each with its kind, and the stored streams read again. Without a
 * key: the new ones from the feed alone (it cannot tell a stream's state). With one: videos.list
 * for the new ids and those of the channel's videos still `upcoming` or `live` in the same calls
 * (1 unit per 50 ids; docs/decisions/120); live and upcoming from `liveBroadcastContent`;
 * Shorts from the feed's link form when the ids came from the feed, else, when there are new
 * ones, from the first page of the channel's Shorts playlist (`UUSH` + the id's suffix): one
 * call per refresh, not one per video.
 */
async function readVideos(
  ctx: YoutubeCtx,
  client: YoutubeClient,
  channelId: string,
  ids: string[],
  entries?: FeedEntry[],
): Promise<{ videos: ApiVideo[]; reread: ApiVideo[] }> {
  const wanted = new Set(ids)
  if (youtubeMode(ctx.env) === 'feed') return { videos: (entries ?? []).filter((e) => wanted.has(e.videoId)).map((e) => feedVideo(e, channelId)), reread: [] }
  const streams = (await streamVideoIds(ctx.db, channelId)).filter((id) => !wanted.has(id))
  if (ids.length + streams.length === 0) return { videos: [], reread: [] }
  const found = (await client.videos([...ids, ...streams])).filter((v) => v.channelId === channelId)
  let shorts = new Set<string>()
  if (entries) shorts = new Set(entries.filter((e) => e.short).map((e) => e.videoId))
  else if (ids.length) {
    try {
      shorts = new Set((await client.playlistItems(`UUSH${channelId.slice(2)}`)).items.map((i) => i.videoId))
    } catch (err) {
      // a channel without Shorts has no such playlist
      if (!(err instanceof YoutubeApiError && err.status === 404)) throw err
    }
  }
  const all = found.map((v) => (v.kind === 'video' && shorts.has(v.id) ? { ...v, kind: 'short' as const } : v))
  return { videos: all.filter((v) => wanted.has(v.id)), reread: all.filter((v) => !wanted.has(v.id)) }
}

/**
 * Fetches a channel's new uploads. `updating` is true exactly while this
 * runs (an atomic claim: a second refresh of the same channel answers
 * `busy`); the new videos are written in one transaction at the end, so a
 * failure or a quota stop leaves nothing half-written.
 */
export async function refreshChannel(
  ctx: YoutubeCtx,
  input: { channelId: string; dateAfter?: Date },
  opts: {
    signal?: AbortSignal
    client?: YoutubeClient
    /** Called once with the videos this refresh added (not for a channel's first fill); must not throw. */
    onNews?: (channel: { id: string; title: string }, videos: { id: string; title: string }[]) => Promise<void>
  } = {},
): Promise<RefreshOutcome> {
  const client = opts.client ?? youtubeClientFor(ctx, opts.signal)
  let channel = await getChannel(ctx.db, input.channelId)
  try {
    if (!channel) {
      const [found] = await client.channelsById([input.channelId])
      if (!found) return { status: 'gone' }
      await upsertChannels(ctx.db, [found])
      channel = (await getChannel(ctx.db, input.channelId))!
    }
  } catch (err) {
    if (err instanceof QuotaExhausted) return { status: 'quota', resetsAt: err.resetsAt, reason: err.reason }
    throw err
  }
  if (!(await claimRefresh(ctx.db, channel.id))) return { status: 'busy' }
  await announce(ctx, channel.id, true)
  const heartbeat = setInterval(() => {
    heartbeatRefresh(ctx.db, channel.id).catch(() => {})
  }, HEARTBEAT_MS)
  let error: string | null = null
  try {
    const { ids, via, entries } = await newUploadIds(ctx, client, channel, input.dateAfter)
    const { videos, reread } = await readVideos(ctx, client, channel.id, ids, entries)
    let updated = 0
    const inserted = await ctx.db.transaction(async (tx) => {
      const ids = await insertVideos(tx, videos)
      updated = await updateVideoKinds(tx, reread)
      await tx
        .update(youtubeChannels)
        .set({ refreshedAt: sql`now()`, refreshError: null })
        .where(eq(youtubeChannels.id, channel.id))
      return new Set(ids)
    })
    const added = inserted.size
    log.info('channel refreshed', { channelId: channel.id, added, updated, via })
    // a first fill of a channel is its back catalogue, not news
    if (channel.refreshedAt && added && opts.onNews) {
      await opts.onNews({ id: channel.id, title: channel.title }, videos.filter((v) => inserted.has(v.id)))
    }
    return { status: 'done', added, via }
  } catch (err) {
    if (err instanceof QuotaExhausted) {
      error = err.message
      log.warn('channel refresh stopped: quota', { channelId: channel.id, reason: err.reason })
      return { status: 'quota', resetsAt: err.resetsAt, reason: err.reason }
    }
    error = err instanceof Error ? err.message : String(err)
    throw err
  } finally {
    clearInterval(heartbeat)
    await releaseRefresh(ctx.db, channel.id, error ?? undefined)
    await announce(ctx, channel.id, false)
  }
}

/** Reloads the category names (1 unit); nothing without a key. */
export async function refreshCategories(ctx: YoutubeCtx, opts: { signal?: AbortSignal } = {}): Promise<number> {
  // without a key there are no categories: the feed does not name them
  if (youtubeMode(ctx.env) === 'feed') return 0
  const categories = await youtubeClientFor(ctx, opts.signal).videoCategories('US')
  await upsertCategories(ctx.db, categories)
  return categories.length
}
