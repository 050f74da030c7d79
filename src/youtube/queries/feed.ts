import { and, asc, count, desc, eq, inArray, ne, sql, type SQL } from 'drizzle-orm'
import type { Tx } from '../../db/client.ts'
import { fallbackCategoryName } from '../categories.ts'
import { countFilters, feedCountScope, feedPage, subscribedChannels, type FeedPlan } from './feed-plan.ts'
import type { DearrowJson } from '../personal/dearrow.ts'
import { youtubeMutedVideos } from '../personal/tables.ts'
import {
  youtubeChannels,
  youtubeChannelVideoCounts,
  youtubeLikes,
  youtubeQueueEntries,
  youtubeVideoCategories,
  youtubeVideos,
  youtubeWatches,
  VIDEO_KINDS,
  type VideoKind,
} from '../tables.ts'

import { youtubeKeeps, youtubeKeptFiles } from '../keep/tables.ts'
import type { KeptJson } from '../keep/schema.ts'

// Reading videos: the feed, one video, related videos, as the API's JSON.

export interface VideoJson {
  id: string
  title: string
  thumbnail: string
  description: string
  publishedAt: string
  /** Seconds; null when unknown (a video read from a feed without a key) or on air. */
  duration: number | null
  kind: VideoKind
  category: { id: number; name: string }
  channel: { id: string; title: string; thumbnail: string }
  liked: string | null
  queued: string | null
  watched: string | null
  /** Direct media file (demo/test mode with YOUTUBE_MEDIA_URL), else null: play through YouTube. */
  mediaUrl: string | null
  /** DeArrow's title and thumbnail for the user (null here; the routes fill it in: personal/dearrow.ts). */
  dearrow: DearrowJson | null
  /** The user's keep of this video (src/youtube/keep), or null. */
  kept: KeptJson | null
}

/** A user's mark on the current video row, as a scalar subquery (see videoSelect). */
function markOf(table: typeof youtubeLikes, userId: string) {
  return sql<Date | null>`(select ${table.createdAt} from ${table} where ${table.userId} = ${userId} and ${table.videoId} = ${youtubeVideos.id})`.mapWith(
    table.createdAt,
  )
}

function videoColumns(userId: string) {
  // the user's keep and the video's one file: a scalar subquery as the marks
  // guarded by an uncorrelated EXISTS (one InitPlan per query): a person who keeps nothing pays
  // nothing per row (the feed's plans may compute the columns before their sort and limit)
  const kept = sql<KeptJson | null>`(case when exists (select 1 from ${youtubeKeeps} kx where kx.user_id = ${userId} and kx.removed_at is null) then (select json_build_object('state', case when k.error_kind is not null then 'failed' else coalesce(f.state, 'queued') end,
    'maxHeight', k.max_height, 'height', f.height, 'sizeBytes', case when f.file is null then null else f.size end, 'pinned', k.pinned,
    'error', case when k.error_kind is not null then k.error when f.state = 'failed' or f.error_kind is not null then f.error end,
    'errorKind', coalesce(k.error_kind, case when f.state = 'failed' or f.error_kind is not null then f.error_kind end))
    from ${youtubeKeeps} k left join ${youtubeKeptFiles} f on f.video_id = k.video_id
    where k.user_id = ${userId} and k.video_id = ${youtubeVideos.id} and k.removed_at is null) end)`.mapWith((v) => (typeof v === 'string' ? JSON.parse(v) : v))
  return {
    id: youtubeVideos.id,
    title: youtubeVideos.title,
    thumbnail: youtubeVideos.thumbnail,
    description: youtubeVideos.description,
    publishedAt: youtubeVideos.publishedAt,
    duration: youtubeVideos.duration,
    kind: youtubeVideos.kind,
    categoryId: youtubeVideos.categoryId,
    categoryName: sql<string | null>`(select ${youtubeVideoCategories.name} from ${youtubeVideoCategories} where ${youtubeVideoCategories.id} = ${youtubeVideos.categoryId})`,
    channelId: youtubeChannels.id,
    channelTitle: youtubeChannels.title,
    channelThumbnail: youtubeChannels.thumbnail,
    liked: markOf(youtubeLikes, userId),
    queued: markOf(youtubeQueueEntries, userId),
    watched: markOf(youtubeWatches, userId),
    kept,
  }
}

type VideoRow = {
  id: string
  title: string
  thumbnail: string
  description: string
  publishedAt: Date
  duration: number
  kind: VideoKind
  categoryId: number
  categoryName: string | null
  channelId: string
  channelTitle: string
  channelThumbnail: string
  liked: Date | null
  queued: Date | null
  watched: Date | null
  kept: KeptJson | null
}

export function toVideoJson(row: VideoRow, mediaUrl?: string): VideoJson {
  return {
    id: row.id,
    title: row.title,
    thumbnail: row.thumbnail,
    description: row.description,
    publishedAt: row.publishedAt.toISOString(),
    duration: row.duration || null,
    kind: row.kind,
    category: { id: row.categoryId, name: row.categoryName ?? fallbackCategoryName(row.categoryId) },
    channel: { id: row.channelId, title: row.channelTitle, thumbnail: row.channelThumbnail },
    liked: row.liked?.toISOString() ?? null,
    queued: row.queued?.toISOString() ?? null,
    watched: row.watched?.toISOString() ?? null,
    mediaUrl: mediaUrl ? `${mediaUrl.replace(/\/+$/, '')}/${row.id}.webm` : null,
    dearrow: null,
    kept: row.kept ?? null,
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

export interface VideoFilter {
  page: number
  perPage: number
  categories?: number[]
  channelId?: string
  likedOnly?: boolean
  queuedOnly?: boolean
  hideWatched?: boolean
  hideShorts?: boolean
  hideLive?: boolean
  /** Words of the title (each matched as a word prefix). */
  q?: string
  /** The subscription feed only: that group's channels (its owner checked by the caller). */
  groupId?: string
  /** The subscription feed only: leave out what the user's muted words hide (set when the user has any). */
  muted?: boolean
}

/** `q` as a tsquery of word prefixes ('simple' configuration, as the index); null when it has no word. */
export function titleQuery(q: string | undefined): string | null {
  const words = (q ?? '').toLowerCase().match(/[\p{L}\p{N}]+/gu)?.slice(0, 10)
  return words?.length ? words.map((w) => `'${w}':*`).join(' & ') : null
}

/** The kinds left in the list by hide_shorts / hide_live; null when none is hidden. */
function shownKinds(f: VideoFilter): VideoKind[] | null {
  if (!f.hideShorts && !f.hideLive) return null
  return VIDEO_KINDS.filter((k) => !(f.hideShorts && k === 'short') && !(f.hideLive && (k === 'live' || k === 'upcoming')))
}

/**
 * A hashed filter (the user's watched ids, hashed once), which the walk of deep pages evaluates
 * inside its index-only scan: `not exists` became an index probe per entry read (page 200 of the
 * bench's hide watched, ids alone: 22 → 15 ms). Both columns are never null, so `not in` selects
 * the same rows as `not exists`. The set fits the planner's hash memory up to about 200,000
 * watches per user (8 MB at the default work_mem: docs/decisions/130).
 */
const notWatched = (userId: string) =>
  sql`not (${youtubeVideos.id} in (select ${youtubeWatches.videoId} from ${youtubeWatches} where ${youtubeWatches.userId} = ${userId}))`

/** The videos the user's muted words hide, as a hashed filter like notWatched (docs/decisions/251). */
const notMuted = (userId: string) =>
  sql`not (${youtubeVideos.id} in (select ${youtubeMutedVideos.videoId} from ${youtubeMutedVideos} where ${youtubeMutedVideos.userId} = ${userId}))`

/**
 * The feed's two queries (a page of rows, the total count), unexecuted so the
 * benchmark can time their bare SQL. Without flags: videos of the user's
 * subscriptions, newest first; `channelId`: that channel's; liked/queued:
 * across all videos, by like time (newest first) or queue time (oldest first).
 *
 * The page is found first as bare ids and sort keys (an index-only scan),
 * then only those rows are joined to their details: with OFFSET, details
 * selected in one query would be computed for every skipped row too. The
 * subscription feed finds those ids one of two ways (`plan`, feed-plan.ts).
 */
export function feedQueries(db: Tx, userId: string, f: VideoFilter, plan: FeedPlan = 'auto') {
  const marked = f.likedOnly || f.queuedOnly
  const kinds = shownKinds(f)
  const words = titleQuery(f.q)
  // what a video itself must be (category, kind, title), apart from whose it is and the user's marks
  const own: SQL[] = []
  if (f.categories?.length) own.push(inArray(youtubeVideos.categoryId, f.categories))
  if (kinds) own.push(inArray(youtubeVideos.kind, kinds))
  const titleMatch = words ? sql`to_tsvector('simple', ${youtubeVideos.title}) @@ to_tsquery('simple', ${words})` : null
  if (titleMatch) own.push(titleMatch)
  // the page's own query reads title matches from the title index (titleMatched below)
  const where: SQL[] = own.filter((c) => c !== titleMatch)
  if (f.channelId) where.push(eq(youtubeVideos.channelId, f.channelId))
  if (f.hideWatched) where.push(notWatched(userId))
  const feed = !f.channelId && !marked
  if (feed && f.muted) where.push(notMuted(userId))
  const [k1, k2, direction] = f.likedOnly
    ? [youtubeLikes.createdAt, youtubeLikes.videoId, desc]
    : f.queuedOnly
      ? [youtubeQueueEntries.createdAt, youtubeQueueEntries.videoId, asc]
      : [youtubeVideos.publishedAt, youtubeVideos.id, desc]
  // With title words the rows come from the title index first, behind a fence (OFFSET 0) under
  // the table's own name: otherwise the planner may walk the whole date index backwards looking
  // for a rare word among the user's channels (seconds); this way a page costs at most what its
  // count costs (docs/decisions/090).
  const titleMatched = titleMatch
    ? sql`(select * from ${youtubeVideos} where ${titleMatch} offset 0) as ${youtubeVideos}`
    : null
  // the matching ids and sort keys, in `scope` (whose videos); built anew for each use (drizzle's builders are mutable)
  const matching = (scope?: SQL) => {
    let ids = db
      .select({ id: sql<string>`${youtubeVideos.id}`.as('page_id'), k1: sql`${k1}`.as('k1'), k2: sql`${k2}`.as('k2') })
      .from(titleMatched ?? youtubeVideos)
      .$dynamic()
    if (f.likedOnly) ids = ids.innerJoin(youtubeLikes, and(eq(youtubeLikes.videoId, youtubeVideos.id), eq(youtubeLikes.userId, userId)))
    if (f.queuedOnly) {
      ids = ids.innerJoin(youtubeQueueEntries, and(eq(youtubeQueueEntries.videoId, youtubeVideos.id), eq(youtubeQueueEntries.userId, userId)))
    }
    // the scope first: the planner keeps this order between filters of the same cost, and it drops the most rows
    return ids.where(and(...(scope ? [scope] : []), ...where))
  }
  const paged = (scope?: SQL) =>
    matching(scope)
      .orderBy(direction(k1), direction(k2))
      .limit(f.perPage)
      .offset((f.page - 1) * f.perPage)
  const countScope = () => feedCountScope(userId, f, kinds)
  const { page, depth } = feed ? feedPage(db, userId, f, { paged, countScope, words: !!words, plan }) : { page: paged().as('page'), depth: null }
  const rows = (depth ? db.with(depth) : db)
    .select(videoColumns(userId))
    .from(page)
    .innerJoin(youtubeVideos, eq(youtubeVideos.id, page.id))
    .innerJoin(youtubeChannels, eq(youtubeChannels.id, youtubeVideos.channelId))
    .orderBy(direction(page.k1), direction(page.k2))

  // title words: count the matching rows themselves (the GIN index finds them)
  if (words) {
    return { rows, total: db.select({ n: count() }).from(matching(feed ? subscribedChannels(userId, youtubeVideos.channelId, f.groupId) : undefined).as('matching')) }
  }
  if (!marked) {
    // channel feeds count from the per-channel, per-category, per-kind totals,
    // less the user's watched videos among them when those are hidden: a watch carries its
    // video's channel, category and kind, so that count reads the user's watches alone (docs/decisions/130)
    const c = youtubeChannelVideoCounts
    const w = youtubeWatches
    const countWhere = f.channelId ? [eq(c.channelId, f.channelId), ...countFilters(f, kinds)] : countScope()
    const watched = f.hideWatched
      ? sql`(select count(*) from ${w} where ${and(
          eq(w.userId, userId),
          f.channelId ? eq(w.channelId, f.channelId) : subscribedChannels(userId, w.channelId, f.groupId),
          ...countFilters(f, kinds, w),
        )})`
      : sql`0`
    // muted videos count like watches (each row carries its video's channel, category and kind);
    // one both watched and muted is taken off once
    const m = youtubeMutedVideos
    const muted =
      feed && f.muted
        ? sql`(select count(*) from ${m} where ${and(
            eq(m.userId, userId),
            subscribedChannels(userId, m.channelId, f.groupId),
            ...countFilters(f, kinds, m),
            ...(f.hideWatched
              ? [sql`not (${m.videoId} in (select ${w.videoId} from ${w} where ${w.userId} = ${userId}))`]
              : []),
          )})`
        : sql`0`
    const total = db
      .select({ n: sql<number>`coalesce(sum(${c.videos}), 0) - ${watched} - ${muted}`.mapWith(Number) })
      .from(c)
      .where(and(...countWhere))
    return { rows, total }
  }
  // liked/queued lists count the user's marks, joining videos only to filter them
  const mark = f.likedOnly ? youtubeLikes : youtubeQueueEntries
  let total = db.select({ n: count() }).from(mark).$dynamic()
  if (f.likedOnly && f.queuedOnly) {
    total = total.innerJoin(
      youtubeQueueEntries,
      and(eq(youtubeQueueEntries.videoId, youtubeLikes.videoId), eq(youtubeQueueEntries.userId, userId)),
    )
  }
  const countWhere: SQL[] = [eq(mark.userId, userId)]
  if (own.length || f.hideWatched || f.channelId) {
    total = total.innerJoin(youtubeVideos, eq(youtubeVideos.id, mark.videoId))
    countWhere.push(...own)
    if (f.channelId) countWhere.push(eq(youtubeVideos.channelId, f.channelId))
    if (f.hideWatched) countWhere.push(notWatched(userId))
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

/** These videos (those that exist), in the order of `ids`. */
export async function videosByIds(db: Tx, userId: string, ids: string[], mediaUrl?: string): Promise<VideoJson[]> {
  if (!ids.length) return []
  const rows = await videoSelect(db, userId).where(inArray(youtubeVideos.id, ids))
  const byId = new Map(rows.map((r) => [r.id, toVideoJson(r, mediaUrl)]))
  return ids.flatMap((id) => byId.get(id) ?? [])
}
