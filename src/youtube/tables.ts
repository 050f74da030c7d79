import { sql } from 'drizzle-orm'
import { type AnyPgColumn, boolean, date, index, integer, pgTable, primaryKey, real, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { users } from '../auth/tables.ts'

/** What a video is: an upload, a Short, a stream on air, or a stream announced. */
export const VIDEO_KINDS = ['video', 'short', 'live', 'upcoming'] as const
export type VideoKind = (typeof VIDEO_KINDS)[number]

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })
// the foreign keys most tables share; a row goes with the user, channel or video it belongs to
const userRef = () => uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' })
const channelRef = () => text('channel_id').notNull().references(() => youtubeChannels.id, { onDelete: 'cascade' })
const videoRef = () => text('video_id').notNull().references(() => youtubeVideos.id, { onDelete: 'cascade' })

/** A channel of the video provider, as last read from its API. */
export const youtubeChannels = pgTable(
  'youtube_channels',
  {
    /** Provider id, `UC` + 22 characters. */
    id: text('id').primaryKey(),
    title: text('title').notNull(),
    /** `@handle`, lower-cased; null when the channel has none. */
    handle: text('handle'),
    thumbnail: text('thumbnail').notNull().default(''),
    /** The channel's uploads playlist (`UU...`). */
    uploadsPlaylistId: text('uploads_playlist_id'),
    /** Last refresh that finished; null until the first one. */
    refreshedAt: ts('refreshed_at'),
    /**
     * Set while a refresh runs (the channel's `updating`), with a heartbeat:
     * the claim is an atomic update, so two refreshes of one channel never run
     * at once, in one process or several. See docs/decisions/023.
     */
    refreshStartedAt: ts('refresh_started_at'),
    refreshHeartbeatAt: ts('refresh_heartbeat_at'),
    /** Why the last refresh did not finish (quota, provider error); null after a good one. */
    refreshError: text('refresh_error'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('youtube_channels_handle_idx').on(t.handle)],
)

/** The user's own channel, whose public subscriptions are synced. */
export const youtubeUserChannels = pgTable('youtube_user_channels', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  channelId: text('channel_id').notNull(),
  /** When the id was last changed: the 24-hour rule counts from here. */
  updatedAt: ts('updated_at').notNull().defaultNow(),
  syncedAt: ts('synced_at'),
  syncError: text('sync_error'),
})

/**
 * A user following a channel. `source` keeps hand-added ones apart from
 * synced ones; a removal is soft (`deletedAt`, `deletedBy`) so that a sync
 * does not bring back a channel the user removed.
 */
export const youtubeSubscriptions = pgTable(
  'youtube_subscriptions',
  {
    userId: userRef(),
    channelId: channelRef(),
    source: text('source', { enum: ['manual', 'sync'] }).notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
    deletedAt: ts('deleted_at'),
    deletedBy: text('deleted_by', { enum: ['user', 'sync'] }),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.channelId] }),
    index('youtube_subscriptions_channel_idx').on(t.channelId).where(sql`${t.deletedAt} is null`),
  ],
)

export const youtubeVideoCategories = pgTable('youtube_video_categories', {
  id: integer('id').primaryKey(),
  name: text('name').notNull(),
  assignable: boolean('assignable').notNull().default(true),
  updatedAt: ts('updated_at').notNull().defaultNow(),
})

export const youtubeVideos = pgTable(
  'youtube_videos',
  {
    /** Provider id, 11 characters. */
    id: text('id').primaryKey(),
    channelId: channelRef(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    thumbnail: text('thumbnail').notNull().default(''),
    publishedAt: ts('published_at').notNull(),
    categoryId: integer('category_id').notNull(),
    /** Seconds, from contentDetails.duration; 0 for live streams. */
    duration: integer('duration').notNull().default(0),
    /** `video`, `short`, `live` or `upcoming`, as known when the video was stored (docs/decisions/090). */
    kind: text('kind', { enum: VIDEO_KINDS }).notNull().default('video'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  // ascending indexes read backwards serve `order by published_at desc, id desc`
  // (a DESC index would be DESC NULLS LAST here, which that order does not match)
  (t) => [
    // the feed: a user's channels, newest first, with a stable tie-break
    index('youtube_videos_channel_published_idx').on(t.channelId, t.publishedAt, t.id),
    // the feed without a channel filter, read backwards: channel and category are in the
    // index (and kind, for hide_shorts/hide_live) so that filtering on them needs no heap visit (liked/queued lists start from the marks)
    index('youtube_videos_published_channel_idx').on(t.publishedAt, t.id, t.channelId, t.categoryId, t.kind),
    // the feed gathered from the user's channels and sorted (deep pages, narrow filters: docs/decisions/118)
    index('youtube_videos_channel_category_published_idx').on(t.channelId, t.categoryId, t.publishedAt, t.id, t.kind),
    // related videos: same category, newest first
    index('youtube_videos_category_published_idx').on(t.categoryId, t.publishedAt, t.id),
    // `q`: title words, full text with the 'simple' configuration (no extension: PGlite and PostgreSQL 15 alike)
    index('youtube_videos_title_search_idx').using('gin', sql`to_tsvector('simple', ${t.title})`),
  ],
)

/**
 * How many videos each channel has per category, kept in step with
 * youtube_videos in the same transaction: the feed's page count sums a few
 * hundred of these rows instead of counting a hundred thousand videos.
 */
export const youtubeChannelVideoCounts = pgTable(
  'youtube_channel_video_counts',
  {
    channelId: channelRef(),
    categoryId: integer('category_id').notNull(),
    kind: text('kind', { enum: VIDEO_KINDS }).notNull().default('video'),
    videos: integer('videos').notNull(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.categoryId, t.kind] })],
)

/** Per-user marks on a video: one row per (user, video), the first time kept. */
function mark(name: string) {
  return pgTable(name, markColumns(), (t) => markIndexes(name, t))
}

const markColumns = () => ({
  userId: userRef(),
  videoId: videoRef(),
  createdAt: ts('created_at').notNull().defaultNow(),
})

function markIndexes(name: string, t: { userId: AnyPgColumn; videoId: AnyPgColumn; createdAt: AnyPgColumn }) {
  return [primaryKey({ columns: [t.userId, t.videoId] }), index(`${name}_user_created_idx`).on(t.userId, t.createdAt, t.videoId)]
}

export const youtubeLikes = mark('youtube_likes')
export const youtubeQueueEntries = mark('youtube_queue_entries')
/**
 * Watches also carry what the feed's filters read of their video (its channel, category and
 * kind; copied when the watch is stored, the kind rewritten with the video's), so hide_watched's
 * count reads one index of the user's watches instead of joining each to its video
 * (docs/decisions/130).
 */
export const youtubeWatches = pgTable(
  'youtube_watches',
  {
    ...markColumns(),
    // no foreign key of its own: the video's (to its channel) and the watch's (to its video) cover it
    channelId: text('channel_id').notNull(),
    categoryId: integer('category_id').notNull(),
    kind: text('kind', { enum: VIDEO_KINDS }).notNull(),
  },
  (t) => [
    ...markIndexes('youtube_watches', t),
    // hide_watched's count: the user's watches in the feed's channels, categories and kinds, index-only
    index('youtube_watches_user_channel_idx').on(t.userId, t.channelId, t.categoryId, t.kind),
    // a video's watches, when its kind changes (and when it is deleted)
    index('youtube_watches_video_idx').on(t.videoId),
  ],
)

/** Where a user stopped in a video, so playback resumes on any device. */
export const youtubePlaybackProgress = pgTable(
  'youtube_playback_progress',
  {
    userId: userRef(),
    videoId: videoRef(),
    playedSeconds: real('played_seconds').notNull(),
    duration: real('duration').notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.videoId] })],
)

/**
 * Quota units spent per provider day. The API's quota resets at midnight
 * Pacific time, so `day` is the date in America/Los_Angeles.
 */
export const youtubeQuotaDays = pgTable('youtube_quota_days', {
  day: date('day', { mode: 'string' }).primaryKey(),
  units: integer('units').notNull().default(0),
  calls: integer('calls').notNull().default(0),
  /** Set when the day's budget ran out or the API answered quotaExceeded. */
  exhaustedAt: ts('exhausted_at'),
  cause: text('cause'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
})
