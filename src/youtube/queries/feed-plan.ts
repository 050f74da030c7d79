import { and, inArray, not, sql, type SQL } from 'drizzle-orm'
import type { AnyPgColumn, PgSelect } from 'drizzle-orm/pg-core'
import type { Tx } from '../../db/client.ts'
import { youtubeGroupChannels } from '../personal/tables.ts'
import { youtubeChannelVideoCounts, youtubeSubscriptions, youtubeVideos, type VideoKind } from '../tables.ts'
import type { VideoFilter } from './feed.ts'

// How a page of the subscription feed is found (docs/decisions/118): by walking the date index
// backwards through everyone's videos, or by gathering the user's own videos from the per-channel
// index and sorting them. The page is the same either way; only the cost differs.

/** `auto` picks per request; `walk` and `gather` force one way (tests compare them). */
export type FeedPlan = 'auto' | 'walk' | 'gather'

/**
 * The user's followed channels (with `groupId`: those of them in that group, whose owner the route
 * checked), as a subquery's FROM and WHERE.
 */
function followedFrom(userId: string, groupId?: string): SQL {
  const s = youtubeSubscriptions
  const g = youtubeGroupChannels
  const inGroup = groupId ? sql` join ${g} on ${g.channelId} = ${s.channelId} and ${g.groupId} = ${groupId}` : sql``
  return sql`${s}${inGroup} where ${s.userId} = ${userId} and ${s.deletedAt} is null`
}

export function subscribedChannels(userId: string, column: SQL.Aliased | AnyPgColumn, groupId?: string): SQL {
  return sql`${column} in (select ${youtubeSubscriptions.channelId} from ${followedFrom(userId, groupId)})`
}

/**
 * The walk's filter. `is true` keeps the subscriptions a hashed filter inside the index-only
 * scan: as a plain `in` the planner made it a semi-join, a cache lookup per index entry, twice
 * as slow on deep pages. In a WHERE both forms select the same rows (null is not true either).
 */
const walkScope = (userId: string, groupId?: string) => sql`(${subscribedChannels(userId, youtubeVideos.channelId, groupId)}) is true`

/** `column` is one of the user's channels, as an index condition: one index range per followed channel. */
const inSubscribedArray = (userId: string, column: AnyPgColumn, groupId?: string) =>
  sql`${column} = any(array(select ${youtubeSubscriptions.channelId} from ${followedFrom(userId, groupId)}))`

/** The gathering's condition. */
const gatherScope = (userId: string, groupId?: string) => inSubscribedArray(userId, youtubeVideos.channelId, groupId)

/** The category and kind filters on youtube_channel_video_counts (or on youtube_watches, which carry both). */
export function countFilters(f: VideoFilter, kinds: VideoKind[] | null, c: { categoryId: AnyPgColumn; kind: AnyPgColumn } = youtubeChannelVideoCounts): SQL[] {
  const filters: SQL[] = []
  if (f.categories?.length) filters.push(inArray(c.categoryId, f.categories))
  if (kinds) filters.push(inArray(c.kind, kinds))
  return filters
}

/**
 * The rows of youtube_channel_video_counts that the user's feed under `f` sums: read by key, a
 * few rows per followed channel (a hashed join read every channel's rows: 1.6 → 1.2 ms on the bench).
 */
export function feedCountScope(userId: string, f: VideoFilter, kinds: VideoKind[] | null): SQL[] {
  return [inSubscribedArray(userId, youtubeChannelVideoCounts.channelId, f.groupId), ...countFilters(f, kinds)]
}

/**
 * The page's ids for the subscription feed. A walk reads about (offset + per page) × all videos /
 * the user's videos index entries; gathering reads the user's matching videos (n, from the
 * counts) and sorts them, about twice the work per video. `auto` gathers when
 * (offset + per page) × all > 2 n², decided in the statement itself (a one-time filter on each
 * branch of a UNION ALL: only one runs). "All videos" is the planner's row estimate of the table
 * (unknown before its first ANALYZE: then it walks, as before).
 */
export function feedPage(
  db: Tx,
  userId: string,
  f: VideoFilter,
  o: { paged: (scope?: SQL) => PgSelect; countScope: () => SQL[]; words: boolean; plan: FeedPlan },
) {
  // title words: the title index finds the rows (docs/decisions/090), a semi-join keeps the user's
  // (a hash join, leaner than the walk's filter over the fenced rows: 1M rows for a word of every title)
  const g = f.groupId
  if (o.words) return { page: o.paged(subscribedChannels(userId, youtubeVideos.channelId, g)).as('page'), depth: null }
  if (o.plan === 'walk') return { page: o.paged(walkScope(userId, g)).as('page'), depth: null }
  if (o.plan === 'gather') return { page: o.paged(gatherScope(userId, g)).as('page'), depth: null }
  const c = youtubeChannelVideoCounts
  const reach = f.page * f.perPage
  const depth = db.$with('feed_depth').as(
    db
      .select({
        deep: sql<boolean>`${reach}::float8 * (select reltuples from pg_class where oid = 'youtube_videos'::regclass) > 2 * coalesce(sum(${c.videos}), 0)::float8 ^ 2`.as(
          'deep',
        ),
      })
      .from(c)
      .where(and(...o.countScope())),
  )
  const deep = sql`(select ${depth.deep} from ${depth})`
  const page = o
    .paged(and(walkScope(userId, g), not(deep)))
    .unionAll(o.paged(and(gatherScope(userId, g), deep)))
    .as('page')
  return { page, depth }
}
