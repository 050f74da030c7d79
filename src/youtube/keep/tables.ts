import { sql } from 'drizzle-orm'
import { bigint, boolean, index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { users } from '../../auth/tables.ts'
import { youtubeChannels, youtubeVideos } from '../tables.ts'

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/** A followed channel's Keep rule (docs/decisions/280): its newest `keepLast` eligible videos on disk. */
export const youtubeKeepRules = pgTable(
  'youtube_keep_rules',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => youtubeChannels.id, { onDelete: 'cascade' }),
    enabled: boolean('enabled').notNull(),
    keepLast: integer('keep_last').notNull().default(20),
    maxHeight: integer('max_height').notNull().default(1080),
    /** null: watched videos stay; 0-365: they leave that many days after the watch. */
    deleteWatchedAfterDays: integer('delete_watched_after_days'),
    includeShorts: boolean('include_shorts').notNull().default(false),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.channelId] })],
)

/**
 * A user keeping a video (by a rule, or `pinned` by hand). A removal leaves the row with
 * `removedAt` set: no rule fetches that video again for that user. `error`/`errorKind`:
 * this user's own failure (the quota), shown in place of the file's state.
 */
export const youtubeKeeps = pgTable(
  'youtube_keeps',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    videoId: text('video_id')
      .notNull()
      .references(() => youtubeVideos.id, { onDelete: 'cascade' }),
    pinned: boolean('pinned').notNull().default(false),
    maxHeight: integer('max_height').notNull(),
    error: text('error'),
    errorKind: text('error_kind'),
    removedAt: ts('removed_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.videoId] }),
    // the Kept page: a user's live keeps
    index('youtube_keeps_user_idx').on(t.userId, t.createdAt).where(sql`${t.removedAt} is null`),
    index('youtube_keeps_video_idx').on(t.videoId),
  ],
)

/**
 * The one stored file of a kept video (docs/decisions/281), at the largest height its keepers
 * asked for. `state`: queued | fetching | ready | failed; `file` (relative to KEEP_DIR) stays
 * served while a larger height is fetched. `episode` is fixed once written.
 */
export const youtubeKeptFiles = pgTable(
  'youtube_kept_files',
  {
    videoId: text('video_id')
      .primaryKey()
      .references(() => youtubeVideos.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => youtubeChannels.id, { onDelete: 'cascade' }),
    state: text('state').notNull(),
    /** The height being fetched (the largest asked when the fetch was queued). */
    wantHeight: integer('want_height').notNull(),
    /** The stored file's height; null until one is stored (or when yt-dlp could not tell). */
    height: integer('height'),
    file: text('file'),
    contentType: text('content_type'),
    size: bigint('size', { mode: 'number' }),
    episode: integer('episode'),
    error: text('error'),
    errorKind: text('error_kind'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [index('youtube_kept_files_channel_idx').on(t.channelId)],
)

/** An admin's keep quota for a user, in MB (1,048,576 bytes); no row: no limit. */
export const youtubeKeepQuotas = pgTable('youtube_keep_quotas', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  quotaMb: integer('quota_mb').notNull(),
})
