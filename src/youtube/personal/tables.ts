import { index, integer, jsonb, pgTable, primaryKey, real, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { users } from '../../auth/tables.ts'
import { VIDEO_KINDS, youtubeChannels, youtubeVideos } from '../tables.ts'

// A person's own shaping of the feed: groups of channels, muted words, DeArrow (docs/decisions/250-253).

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })
const userRef = () => uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' })

/** A named set of the user's channels, chosen as a filter on the feed. */
export const youtubeGroups = pgTable(
  'youtube_groups',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: userRef(),
    name: text('name').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('youtube_groups_user_idx').on(t.userId, t.createdAt)],
)

/** A channel in a group (a channel may be in several). */
export const youtubeGroupChannels = pgTable(
  'youtube_group_channels',
  {
    groupId: uuid('group_id')
      .notNull()
      .references(() => youtubeGroups.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => youtubeChannels.id, { onDelete: 'cascade' }),
    /** Order as the user gave them. */
    position: integer('position').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.channelId] })],
)

/** The user's muted words and phrases, stored as given. */
export const youtubeFeedFilters = pgTable('youtube_feed_filters', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  mutedWords: jsonb('muted_words').$type<string[]>().notNull().default([]),
  updatedAt: ts('updated_at').notNull().defaultNow(),
})

/**
 * The videos a user's muted words hide, worked out when the words change, when the user follows a
 * channel and when videos are stored (titles never change once stored). The feed leaves them out
 * with one hashed filter, and counts them like watches: each row carries the channel, category and
 * kind of its video (docs/decisions/251).
 */
export const youtubeMutedVideos = pgTable(
  'youtube_muted_videos',
  {
    userId: userRef(),
    videoId: text('video_id')
      .notNull()
      .references(() => youtubeVideos.id, { onDelete: 'cascade' }),
    channelId: text('channel_id').notNull(),
    categoryId: integer('category_id').notNull(),
    kind: text('kind', { enum: VIDEO_KINDS }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.videoId] }),
    index('youtube_muted_videos_user_channel_idx').on(t.userId, t.channelId, t.categoryId, t.kind),
    index('youtube_muted_videos_video_idx').on(t.videoId),
  ],
)

/** `off`, `titles` or `titles_thumbnails`; no row: off. */
export const youtubeDearrowSettings = pgTable('youtube_dearrow_settings', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  mode: text('mode').notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
})

/** DeArrow's branding of a video as last looked up (by hash prefix); null title/time: nothing submitted. */
export const youtubeDearrowCache = pgTable('youtube_dearrow_cache', {
  videoId: text('video_id')
    .primaryKey()
    .references(() => youtubeVideos.id, { onDelete: 'cascade' }),
  title: text('title'),
  /** The submitted thumbnail's time in the video (seconds); null: none submitted. */
  thumbnailTime: real('thumbnail_time'),
  fetchedAt: ts('fetched_at').notNull().defaultNow(),
})
