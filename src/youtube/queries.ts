import { and, asc, count, desc, eq, exists, inArray, isNull, ne, or, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import type { ApiChannel, ApiVideo } from './client.ts'
import { fallbackCategoryName } from './categories.ts'
import {
  youtubeChannels,
  youtubeChannelVideoCounts,
  youtubeLikes,
  youtubePlaybackProgress,
  youtubeQueueEntries,
  youtubeSubscriptions,
  youtubeUserChannels,
  youtubeVideoCategories,
  youtubeVideos,
  youtubeWatches,
} from './tables.ts'

// All SQL of the video area lives here: routes, jobs and tests share it.

type Tx = Db | Parameters<Parameters<Db['transaction']>[0]>[0]

export type ChannelRow = typeof youtubeChannels.$inferSelect

export interface ChannelJson {
  id: string
  title: string
  thumbnail: string
  subscribed: boolean
  updating: boolean
}

export interface VideoJson {
  id: string
  title: string
  thumbnail: string
  description: string
  publishedAt: string
  /** Seconds. */
  duration: number
  category: { id: number; name: string }
  channel: { id: string; title: string; thumbnail: string }
  liked: string | null
  queued: string | null
  watched: string | null
  /** Direct media file (demo/test mode with YOUTUBE_MEDIA_URL), else null: play through YouTube. */
  mediaUrl: string | null
}

// ---- channels -------------------------------------------------------------

export async function getChannel(db: Tx, id: string): Promise<ChannelRow | undefined> {
  const [row] = await db.select().from(youtubeChannels).where(eq(youtubeChannels.id, id))
  return row
}

export async function findChannelByHandle(db: Tx, handle: string): Promise<ChannelRow | undefined> {
  const h = (handle.startsWith('@') ? handle : `@${handle}`).toLowerCase()
  const [row] = await db.select().from(youtubeChannels).where(eq(youtubeChannels.handle, h))
  return row
}

/** Which of `ids` are stored channels. */
export async function storedChannelIds(db: Tx, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>()
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await db
      .select({ id: youtubeChannels.id })
      .from(youtubeChannels)
      .where(inArray(youtubeChannels.id, ids.slice(i, i + 1000)))
    for (const r of rows) found.add(r.id)
  }
  return found
}

/** Inserts or refreshes channels from the API (never touching their refresh state). */
export async function upsertChannels(db: Tx, channels: ApiChannel[]): Promise<void> {
  if (channels.length === 0) return
  // a handle moves: free it from any other channel that still claims it
  const handles = channels.map((c) => c.handle).filter((h): h is string => !!h)
  if (handles.length) {
    await db
      .update(youtubeChannels)
      .set({ handle: null })
      .where(
        and(
          inArray(youtubeChannels.handle, handles),
          sql`${youtubeChannels.id} not in (${sql.join(
            channels.map((c) => sql`${c.id}`),
            sql`, `,
          )})`,
        ),
      )
  }
  await db
    .insert(youtubeChannels)
    .values(channels.map((c) => ({ id: c.id, title: c.title, handle: c.handle, thumbnail: c.thumbnail, uploadsPlaylistId: c.uploadsPlaylistId })))
    .onConflictDoUpdate({
      target: youtubeChannels.id,
      set: {
        title: sql`excluded.title`,
        handle: sql`excluded.handle`,
        thumbnail: sql`excluded.thumbnail`,
        uploadsPlaylistId: sql`coalesce(excluded.uploads_playlist_id, ${youtubeChannels.uploadsPlaylistId})`,
        updatedAt: sql`now()`,
      },
    })
}

export async function channelJson(db: Tx, userId: string, id: string): Promise<ChannelJson | null> {
  const [row] = await db
    .select({
      id: youtubeChannels.id,
      title: youtubeChannels.title,
      thumbnail: youtubeChannels.thumbnail,
      subscribed: sql<boolean>`${youtubeSubscriptions.userId} is not null`,
      updating: sql<boolean>`${youtubeChannels.refreshStartedAt} is not null`,
    })
    .from(youtubeChannels)
    .leftJoin(
      youtubeSubscriptions,
      and(
        eq(youtubeSubscriptions.channelId, youtubeChannels.id),
        eq(youtubeSubscriptions.userId, userId),
        isNull(youtubeSubscriptions.deletedAt),
      ),
    )
    .where(eq(youtubeChannels.id, id))
  return row ?? null
}

/** Users with an active subscription to the channel: who hears its `updating`. */
export async function followers(db: Tx, channelId: string): Promise<string[]> {
  const rows = await db
    .select({ userId: youtubeSubscriptions.userId })
    .from(youtubeSubscriptions)
    .where(and(eq(youtubeSubscriptions.channelId, channelId), isNull(youtubeSubscriptions.deletedAt)))
  return rows.map((r) => r.userId)
}

/** Channels someone follows, least recently refreshed first. */
export async function followedChannelIds(db: Tx): Promise<string[]> {
  const rows = await db
    .select({ id: youtubeChannels.id })
    .from(youtubeChannels)
    .where(
      exists(
        db
          .select({ one: sql`1` })
          .from(youtubeSubscriptions)
          .where(and(eq(youtubeSubscriptions.channelId, youtubeChannels.id), isNull(youtubeSubscriptions.deletedAt))),
      ),
    )
    .orderBy(sql`${youtubeChannels.refreshedAt} asc nulls first`, asc(youtubeChannels.id))
  return rows.map((r) => r.id)
}

// ---- refresh lease ----------------------------------------------------------

/** A refresh whose heartbeat is older than this is taken to have died. */
export const REFRESH_STALE_SECONDS = 90

/** Atomically marks the channel updating; false when another refresh holds it. */
export async function claimRefresh(db: Tx, channelId: string): Promise<boolean> {
  const rows = await db
    .update(youtubeChannels)
    .set({ refreshStartedAt: sql`now()`, refreshHeartbeatAt: sql`now()` })
    .where(
      and(
        eq(youtubeChannels.id, channelId),
        or(
          isNull(youtubeChannels.refreshStartedAt),
          sql`${youtubeChannels.refreshHeartbeatAt} < now() - make_interval(secs => ${REFRESH_STALE_SECONDS})`,
        ),
      ),
    )
    .returning({ id: youtubeChannels.id })
  return rows.length > 0
}

export async function heartbeatRefresh(db: Tx, channelId: string): Promise<void> {
  await db.update(youtubeChannels).set({ refreshHeartbeatAt: sql`now()` }).where(eq(youtubeChannels.id, channelId))
}

export async function releaseRefresh(db: Tx, channelId: string, error: string | null | undefined): Promise<void> {
  await db
    .update(youtubeChannels)
    .set({
      refreshStartedAt: null,
      refreshHeartbeatAt: null,
      ...(error === undefined ? {} : { refreshError: error }),
    })
    .where(eq(youtubeChannels.id, channelId))
}

/**
 * Clears `updating` left by refreshes that died with their process. At
 * start-up of a single process every one is dead (`staleOnly: false`); with
 * several processes only those whose heartbeat stopped are. Returns their ids.
 */
export async function resetRefreshes(db: Tx, opts: { staleOnly?: boolean } = {}): Promise<string[]> {
  const rows = await db
    .update(youtubeChannels)
    .set({ refreshStartedAt: null, refreshHeartbeatAt: null })
    .where(
      opts.staleOnly
        ? sql`${youtubeChannels.refreshStartedAt} is not null and ${youtubeChannels.refreshHeartbeatAt} < now() - make_interval(secs => ${REFRESH_STALE_SECONDS})`
        : sql`${youtubeChannels.refreshStartedAt} is not null`,
    )
    .returning({ id: youtubeChannels.id })
  return rows.map((r) => r.id)
}

// ---- videos -----------------------------------------------------------------

/** Which of `ids` are already stored. */
export async function knownVideoIds(db: Tx, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await db.select({ id: youtubeVideos.id }).from(youtubeVideos).where(inArray(youtubeVideos.id, ids))
  return new Set(rows.map((r) => r.id))
}

/** Stores videos (and a name for any category not seen yet); existing ids are left alone. Returns how many were new. */
export async function insertVideos(db: Tx, videos: ApiVideo[]): Promise<number> {
  if (videos.length === 0) return 0
  const categoryIds = [...new Set(videos.map((v) => v.categoryId))]
  await db
    .insert(youtubeVideoCategories)
    .values(categoryIds.map((id) => ({ id, name: fallbackCategoryName(id) })))
    .onConflictDoNothing()
  const counts = new Map<string, { channelId: string; categoryId: number; videos: number }>()
  let added = 0
  for (let i = 0; i < videos.length; i += 500) {
    const rows = await db
      .insert(youtubeVideos)
      .values(videos.slice(i, i + 500))
      .onConflictDoNothing()
      .returning({ channelId: youtubeVideos.channelId, categoryId: youtubeVideos.categoryId })
    added += rows.length
    for (const r of rows) {
      const key = `${r.channelId}/${r.categoryId}`
      const entry = counts.get(key) ?? { ...r, videos: 0 }
      entry.videos++
      counts.set(key, entry)
    }
  }
  // only rows really inserted are counted, so a concurrent insert of the same ids cannot count twice
  if (counts.size) {
    await db
      .insert(youtubeChannelVideoCounts)
      .values([...counts.values()])
      .onConflictDoUpdate({
        target: [youtubeChannelVideoCounts.channelId, youtubeChannelVideoCounts.categoryId],
        set: { videos: sql`${youtubeChannelVideoCounts.videos} + excluded.videos` },
      })
  }
  return added
}

export async function upsertCategories(db: Tx, categories: { id: number; name: string; assignable: boolean }[]) {
  if (categories.length === 0) return
  await db
    .insert(youtubeVideoCategories)
    .values(categories)
    .onConflictDoUpdate({
      target: youtubeVideoCategories.id,
      set: { name: sql`excluded.name`, assignable: sql`excluded.assignable`, updatedAt: sql`now()` },
    })
}

export async function listCategories(db: Tx) {
  return db
    .select({ id: youtubeVideoCategories.id, name: youtubeVideoCategories.name })
    .from(youtubeVideoCategories)
    .orderBy(asc(youtubeVideoCategories.name), asc(youtubeVideoCategories.id))
}

/** A user's mark on the current video row, as a scalar subquery (see videoSelect). */
function markOf(table: typeof youtubeLikes, userId: string) {
  return sql<Date | null>`(select ${table.createdAt} from ${table} where ${table.userId} = ${userId} and ${table.videoId} = ${youtubeVideos.id})`.mapWith(
    table.createdAt,
  )
}

function videoColumns(userId: string) {
  return {
    id: youtubeVideos.id,
    title: youtubeVideos.title,
    thumbnail: youtubeVideos.thumbnail,
    description: youtubeVideos.description,
    publishedAt: youtubeVideos.publishedAt,
    duration: youtubeVideos.duration,
    categoryId: youtubeVideos.categoryId,
    categoryName: sql<string | null>`(select ${youtubeVideoCategories.name} from ${youtubeVideoCategories} where ${youtubeVideoCategories.id} = ${youtubeVideos.categoryId})`,
    channelId: youtubeChannels.id,
    channelTitle: youtubeChannels.title,
    channelThumbnail: youtubeChannels.thumbnail,
    liked: markOf(youtubeLikes, userId),
    queued: markOf(youtubeQueueEntries, userId),
    watched: markOf(youtubeWatches, userId),
  }
}

type VideoRow = {
  id: string
  title: string
  thumbnail: string
  description: string
  publishedAt: Date
  duration: number
  categoryId: number
  categoryName: string | null
  channelId: string
  channelTitle: string
  channelThumbnail: string
  liked: Date | null
  queued: Date | null
  watched: Date | null
}

export function toVideoJson(row: VideoRow, mediaUrl?: string): VideoJson {
  return {
    id: row.id,
    title: row.title,
    thumbnail: row.thumbnail,
    description: row.description,
    publishedAt: row.publishedAt.toISOString(),
    duration: row.duration,
    category: { id: row.categoryId, name: row.categoryName ?? fallbackCategoryName(row.categoryId) },
    channel: { id: row.channelId, title: row.channelTitle, thumbnail: row.channelThumbnail },
    liked: row.liked?.toISOString() ?? null,
    queued: row.queued?.toISOString() ?? null,
    watched: row.watched?.toISOString() ?? null,
    mediaUrl: mediaUrl ? `${mediaUrl.replace(/\/+$/, '')}/${row.id}.webm` : null,
  }
}

/**
 * Videos with their channel; the category name and the user's marks are
 * scalar subqueries rather than joins. Same result, but the planner has two
 * tables to order instead of six: planning the joined form took 20-80 ms
 * on the benchmark's data, more than running it (docs/decisions/026).
 */
function videoSelect(db: Tx, userId: string) {
  return db
    .select(videoColumns(userId))
    .from(youtubeVideos)
    .innerJoin(youtubeChannels, eq(youtubeChannels.id, youtubeVideos.channelId))
    .$dynamic()
}

function subscribedChannels(userId: string, column: SQL.Aliased | typeof youtubeVideos.channelId | typeof youtubeChannelVideoCounts.channelId): SQL {
  return sql`${column} in (select ${youtubeSubscriptions.channelId} from ${youtubeSubscriptions} where ${youtubeSubscriptions.userId} = ${userId} and ${youtubeSubscriptions.deletedAt} is null)`
}

export interface VideoFilter {
  page: number
  perPage: number
  categories?: number[]
  channelId?: string
  likedOnly?: boolean
  queuedOnly?: boolean
}

/**
 * The feed's two queries (a page of rows, the total count), unexecuted so the
 * benchmark can time their bare SQL. Without flags: videos of the user's
 * subscriptions, newest first; `channelId`: that channel's; liked/queued:
 * across all videos, by like time (newest first) or queue time (oldest first).
 *
 * The page is found first as bare ids and sort keys (an index-only scan),
 * then only those rows are joined to their details: with OFFSET, details
 * selected in one query would be computed for every skipped row too.
 */
export function feedQueries(db: Tx, userId: string, f: VideoFilter) {
  const marked = f.likedOnly || f.queuedOnly
  const where: SQL[] = []
  if (f.categories?.length) where.push(inArray(youtubeVideos.categoryId, f.categories))
  if (f.channelId) where.push(eq(youtubeVideos.channelId, f.channelId))
  else if (!marked) where.push(subscribedChannels(userId, youtubeVideos.channelId))
  const cond = where.length ? and(...where) : undefined

  const [k1, k2, direction] = f.likedOnly
    ? [youtubeLikes.createdAt, youtubeLikes.videoId, desc]
    : f.queuedOnly
      ? [youtubeQueueEntries.createdAt, youtubeQueueEntries.videoId, asc]
      : [youtubeVideos.publishedAt, youtubeVideos.id, desc]
  let ids = db
    .select({ id: sql<string>`${youtubeVideos.id}`.as('page_id'), k1: sql`${k1}`.as('k1'), k2: sql`${k2}`.as('k2') })
    .from(youtubeVideos)
    .$dynamic()
  if (f.likedOnly) {
    ids = ids.innerJoin(youtubeLikes, and(eq(youtubeLikes.videoId, youtubeVideos.id), eq(youtubeLikes.userId, userId)))
  }
  if (f.queuedOnly) {
    ids = ids.innerJoin(
      youtubeQueueEntries,
      and(eq(youtubeQueueEntries.videoId, youtubeVideos.id), eq(youtubeQueueEntries.userId, userId)),
    )
  }
  const page = ids
    .where(cond)
    .orderBy(direction(k1), direction(k2))
    .limit(f.perPage)
    .offset((f.page - 1) * f.perPage)
    .as('page')
  const rows = db
    .select(videoColumns(userId))
    .from(page)
    .innerJoin(youtubeVideos, eq(youtubeVideos.id, page.id))
    .innerJoin(youtubeChannels, eq(youtubeChannels.id, youtubeVideos.channelId))
    .orderBy(direction(page.k1), direction(page.k2))

  if (!marked) {
    // channel feeds count from the per-channel, per-category totals
    const c = youtubeChannelVideoCounts
    const countWhere: SQL[] = [f.channelId ? eq(c.channelId, f.channelId) : subscribedChannels(userId, c.channelId)]
    if (f.categories?.length) countWhere.push(inArray(c.categoryId, f.categories))
    const total = db
      .select({ n: sql<number>`coalesce(sum(${c.videos}), 0)`.mapWith(Number) })
      .from(c)
      .where(and(...countWhere))
    return { rows, total }
  }
  // liked/queued lists count the user's marks, joining videos only to filter by category
  const mark = f.likedOnly ? youtubeLikes : youtubeQueueEntries
  let total = db.select({ n: count() }).from(mark).$dynamic()
  if (f.likedOnly && f.queuedOnly) {
    total = total.innerJoin(
      youtubeQueueEntries,
      and(eq(youtubeQueueEntries.videoId, youtubeLikes.videoId), eq(youtubeQueueEntries.userId, userId)),
    )
  }
  const countWhere: SQL[] = [eq(mark.userId, userId)]
  if (f.categories?.length) {
    total = total.innerJoin(youtubeVideos, eq(youtubeVideos.id, mark.videoId))
    countWhere.push(inArray(youtubeVideos.categoryId, f.categories))
  }
  return { rows, total: total.where(and(...countWhere)) }
}

export async function listVideos(db: Tx, userId: string, f: VideoFilter, mediaUrl?: string): Promise<{ videos: VideoJson[]; totalPages: number }> {
  const q = feedQueries(db, userId, f)
  // two connections on PostgreSQL: the page and its count at the same time
  const [rows, [total]] = await Promise.all([q.rows, q.total])
  return {
    videos: rows.map((r) => toVideoJson(r, mediaUrl)),
    totalPages: Math.ceil((total?.n ?? 0) / f.perPage),
  }
}

export async function getVideo(db: Tx, userId: string, id: string, mediaUrl?: string): Promise<VideoJson | null> {
  const [row] = await videoSelect(db, userId).where(eq(youtubeVideos.id, id))
  return row ? toVideoJson(row, mediaUrl) : null
}

/** Same category, the video itself excluded, newest first. */
export async function relatedVideos(db: Tx, userId: string, video: VideoJson, limit: number, mediaUrl?: string): Promise<VideoJson[]> {
  if (limit === 0) return []
  const rows = await videoSelect(db, userId)
    .where(and(eq(youtubeVideos.categoryId, video.category.id), ne(youtubeVideos.id, video.id)))
    .orderBy(desc(youtubeVideos.publishedAt), desc(youtubeVideos.id))
    .limit(limit)
  return rows.map((r) => toVideoJson(r, mediaUrl))
}

export async function videoExists(db: Tx, id: string): Promise<boolean> {
  const [row] = await db.select({ id: youtubeVideos.id }).from(youtubeVideos).where(eq(youtubeVideos.id, id))
  return !!row
}

export const marks = { like: youtubeLikes, queue: youtubeQueueEntries, watch: youtubeWatches } as const
export type MarkKind = keyof typeof marks

/** Idempotent: the first mark's time is kept. */
export async function addMark(db: Tx, kind: MarkKind, userId: string, videoId: string): Promise<void> {
  await db.insert(marks[kind]).values({ userId, videoId }).onConflictDoNothing()
}

/** False when there was nothing to remove. */
export async function removeMark(db: Tx, kind: MarkKind, userId: string, videoId: string): Promise<boolean> {
  const table = marks[kind]
  const rows = await db
    .delete(table)
    .where(and(eq(table.userId, userId), eq(table.videoId, videoId)))
    .returning({ videoId: table.videoId })
  return rows.length > 0
}

// ---- playback progress --------------------------------------------------------

export async function getProgress(db: Tx, userId: string, videoId: string) {
  const [row] = await db
    .select()
    .from(youtubePlaybackProgress)
    .where(and(eq(youtubePlaybackProgress.userId, userId), eq(youtubePlaybackProgress.videoId, videoId)))
  return row
}

export async function saveProgress(db: Tx, userId: string, videoId: string, playedSeconds: number, duration: number) {
  const [row] = await db
    .insert(youtubePlaybackProgress)
    .values({ userId, videoId, playedSeconds, duration })
    .onConflictDoUpdate({
      target: [youtubePlaybackProgress.userId, youtubePlaybackProgress.videoId],
      set: { playedSeconds, duration, updatedAt: sql`now()` },
    })
    .returning()
  return row!
}

// ---- subscriptions --------------------------------------------------------------

export async function listSubscriptions(db: Tx, userId: string, page: number, perPage: number) {
  const active = and(eq(youtubeSubscriptions.userId, userId), isNull(youtubeSubscriptions.deletedAt))
  const rows = await db
    .select({
      id: youtubeChannels.id,
      title: youtubeChannels.title,
      thumbnail: youtubeChannels.thumbnail,
      updating: sql<boolean>`${youtubeChannels.refreshStartedAt} is not null`,
    })
    .from(youtubeSubscriptions)
    .innerJoin(youtubeChannels, eq(youtubeChannels.id, youtubeSubscriptions.channelId))
    .where(active)
    .orderBy(sql`lower(${youtubeChannels.title})`, asc(youtubeChannels.id))
    .limit(perPage)
    .offset((page - 1) * perPage)
  const [total] = await db.select({ n: count() }).from(youtubeSubscriptions).where(active)
  return {
    channels: rows.map((r) => ({ ...r, subscribed: true as const })),
    totalPages: Math.ceil((total?.n ?? 0) / perPage),
  }
}

export type SubscriptionRow = typeof youtubeSubscriptions.$inferSelect

export async function userSubscriptionRows(db: Tx, userId: string): Promise<SubscriptionRow[]> {
  return db.select().from(youtubeSubscriptions).where(eq(youtubeSubscriptions.userId, userId))
}

/**
 * Adds (or revives) a subscription; returns true when it was not active
 * before. A hand-add of a channel that was only synced makes it hand-added,
 * so a later sync leaves it alone.
 */
export async function subscribe(db: Tx, userId: string, channelId: string, source: 'manual' | 'sync' = 'manual'): Promise<boolean> {
  const rows = await db
    .insert(youtubeSubscriptions)
    .values({ userId, channelId, source })
    .onConflictDoUpdate({
      target: [youtubeSubscriptions.userId, youtubeSubscriptions.channelId],
      set: {
        source: sql`case when ${youtubeSubscriptions.deletedAt} is null then 'manual' else excluded.source end`,
        createdAt: sql`case when ${youtubeSubscriptions.deletedAt} is null then ${youtubeSubscriptions.createdAt} else now() end`,
        deletedAt: null,
        deletedBy: null,
      },
      setWhere: sql`${youtubeSubscriptions.deletedAt} is not null or (excluded.source = 'manual' and ${youtubeSubscriptions.source} = 'sync')`,
    })
    .returning({ revived: sql<boolean>`xmax = 0 or ${youtubeSubscriptions.createdAt} = now()` })
  return rows.some((r) => r.revived)
}

/** Soft removal; false when there was no active subscription. */
export async function unsubscribe(db: Tx, userId: string, channelId: string, by: 'user' | 'sync'): Promise<boolean> {
  const rows = await db
    .update(youtubeSubscriptions)
    .set({ deletedAt: sql`now()`, deletedBy: by })
    .where(
      and(
        eq(youtubeSubscriptions.userId, userId),
        eq(youtubeSubscriptions.channelId, channelId),
        isNull(youtubeSubscriptions.deletedAt),
      ),
    )
    .returning({ channelId: youtubeSubscriptions.channelId })
  return rows.length > 0
}

// ---- user channel -----------------------------------------------------------------

export async function getUserChannel(db: Tx, userId: string) {
  const [row] = await db.select().from(youtubeUserChannels).where(eq(youtubeUserChannels.userId, userId))
  return row
}

export async function setUserChannel(db: Tx, userId: string, channelId: string) {
  await db
    .insert(youtubeUserChannels)
    .values({ userId, channelId })
    .onConflictDoUpdate({
      target: youtubeUserChannels.userId,
      set: { channelId, updatedAt: sql`now()`, syncedAt: null, syncError: null },
    })
}

export async function usersWithChannel(db: Tx): Promise<string[]> {
  const rows = await db.select({ userId: youtubeUserChannels.userId }).from(youtubeUserChannels)
  return rows.map((r) => r.userId)
}
