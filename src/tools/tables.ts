import { index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'

/**
 * The admin's cookies.txt for yt-dlp (one row, id 1): the file encrypted with
 * the app secret, plus what the admin status may show of it. The file itself
 * is never returned; each yt-dlp call gets a private temporary copy.
 */
export const toolCookies = pgTable('tool_cookies', {
  id: integer('id').primaryKey().default(1),
  sealed: text('sealed').notNull(),
  count: integer('count').notNull(),
  /** Comma-separated cookie domains, sorted. */
  domains: text('domains').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
})

/**
 * The app-wide YouTube gate (src/tools/pace.ts), one row (id 1) that every
 * process locks (`select … for update`) to take a turn: when the last
 * extraction started (or is reserved to start), and the pause after a bot
 * check with its cause and how many pauses followed each other.
 */
export const youtubePace = pgTable('youtube_pace', {
  id: integer('id').primaryKey().default(1),
  lastStartAt: timestamp('last_start_at', { withTimezone: true, mode: 'date' }),
  pausedUntil: timestamp('paused_until', { withTimezone: true, mode: 'date' }),
  pausedAt: timestamp('paused_at', { withTimezone: true, mode: 'date' }),
  pauseCause: text('pause_cause'),
  /** Pauses in a row without a successful extraction after one ended: the next lasts base × 2^strikes. */
  strikes: integer('strikes').notNull().default(0),
})

/**
 * One row per YouTube extraction started (or reserved) in the last hour or so: YTDLP_MAX_PER_HOUR
 * counts them; `owner` (null: the app) and `rank` say whose it was, for the fair gate's turns.
 */
export const youtubeStarts = pgTable(
  'youtube_starts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull(),
    owner: text('owner'),
    rank: integer('rank').notNull().default(1),
  },
  (t) => [index('youtube_starts_at_idx').on(t.at), index('youtube_starts_owner_idx').on(t.owner, t.at)],
)

/**
 * Callers waiting at the gate right now (docs/decisions/220-fair-youtube-gate.md): each polls at
 * least every second (`seen_at`); a row not seen for 20 s is a caller that is gone. The next turn
 * goes to the lowest `rank` (0 admin, 1 by hand, 2 background), then to the owner whose last
 * start is oldest, then to the oldest row.
 */
export const youtubeWaiters = pgTable(
  'youtube_waiters',
  {
    id: uuid('id').primaryKey(),
    owner: text('owner'),
    rank: integer('rank').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    seenAt: timestamp('seen_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('youtube_waiters_seen_idx').on(t.seenAt)],
)
