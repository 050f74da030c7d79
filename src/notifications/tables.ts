import { boolean, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { users } from '../auth/tables.ts'

/** Where a user's notifications go (ntfy topic and/or webhook) and which events they want. */
export const notificationSettings = pgTable('notification_settings', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  ntfyUrl: text('ntfy_url'),
  webhookUrl: text('webhook_url'),
  onJobFinished: boolean('on_job_finished').notNull().default(true),
  onJobFailed: boolean('on_job_failed').notNull().default(true),
  onNewVideos: boolean('on_new_videos').notNull().default(true),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
})
