import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core'

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
