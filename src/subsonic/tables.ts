import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, real, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { users } from '../auth/tables.ts'
import { musicJobs } from '../music/tables.ts'

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/**
 * The Subsonic app password of a user (docs/api.md, Subsonic API): players that only know
 * the salted-token sign-in need the password itself, so it is kept encrypted with the app
 * Cipher, never hashed. One per user; a new one replaces it.
 */
export const subsonicPasswords = pgTable('subsonic_passwords', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  sealed: text('sealed').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
})

/**
 * One row per song (a finished job, or one track of a chapter split: `track` 0 is the whole
 * job) that a player touched or that was measured: what the file holds (filled on first sight
 * from the MP3, refreshed when `file` no longer names the job's file) and the user's own
 * marks (plays, star). The songs themselves are the jobs (src/subsonic/library.ts).
 */
export const subsonicSongs = pgTable(
  'subsonic_songs',
  {
    jobId: uuid('job_id')
      .notNull()
      .references(() => musicJobs.id, { onDelete: 'cascade' }),
    track: integer('track').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The file (relative to the job folder) the facts were read from; null when they must be read again. */
    file: text('file'),
    size: bigint('size', { mode: 'number' }),
    duration: real('duration'),
    bitRate: integer('bit_rate'),
    trackGain: real('track_gain'),
    trackPeak: real('track_peak'),
    playCount: integer('play_count').notNull().default(0),
    played: ts('played'),
    starred: ts('starred'),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.track] }), index('subsonic_songs_user_idx').on(t.userId)],
)

/** Starred albums and artists (their ids are derived from names: src/subsonic/ids.ts). */
export const subsonicStars = pgTable(
  'subsonic_stars',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    itemId: text('item_id').notNull(),
    starred: ts('starred').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.itemId] })],
)

export const subsonicPlaylists = pgTable(
  'subsonic_playlists',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    comment: text('comment'),
    public: boolean('public').notNull().default(false),
    createdAt: ts('created_at').notNull().defaultNow(),
    changedAt: ts('changed_at').notNull().defaultNow(),
  },
  (t) => [index('subsonic_playlists_user_idx').on(t.userId)],
)

/** A playlist's songs in order; a deleted job leaves its playlists at once (cascade). */
export const subsonicPlaylistEntries = pgTable(
  'subsonic_playlist_entries',
  {
    playlistId: uuid('playlist_id')
      .notNull()
      .references(() => subsonicPlaylists.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    jobId: uuid('job_id')
      .notNull()
      .references(() => musicJobs.id, { onDelete: 'cascade' }),
    track: integer('track').notNull(),
  },
  (t) => [primaryKey({ columns: [t.playlistId, t.position] }), index('subsonic_playlist_entries_job_idx').on(t.jobId)],
)

/** The play queue a player saved (savePlayQueue), one per user; song ids as the API gives them. */
export const subsonicPlayQueues = pgTable('subsonic_play_queues', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  songIds: jsonb('song_ids').$type<string[]>().notNull(),
  current: text('current'),
  /** The index of the current entry (savePlayQueueByIndex; the same song may be queued twice). */
  currentIndex: integer('current_index'),
  position: bigint('position', { mode: 'number' }).notNull().default(0),
  changedAt: ts('changed_at').notNull().defaultNow(),
  changedBy: text('changed_by').notNull().default(''),
})

/**
 * Bookmarks of songs (createBookmark), one per user and song id. An episode's bookmark lives
 * in the web player's progress instead (youtube_progress); only its comment is kept here.
 */
export const subsonicBookmarks = pgTable(
  'subsonic_bookmarks',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    itemId: text('item_id').notNull(),
    position: bigint('position', { mode: 'number' }).notNull().default(0),
    comment: text('comment'),
    createdAt: ts('created_at').notNull().defaultNow(),
    changedAt: ts('changed_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.itemId] })],
)

