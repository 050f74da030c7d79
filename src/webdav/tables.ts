import { pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { users } from '../auth/tables.ts'

/** One linked WebDAV account per user; the password is AES-GCM encrypted with the app secret. */
export const webdavAccounts = pgTable('webdav_accounts', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  username: text('username').notNull(),
  passwordEnc: text('password_enc').notNull(),
  url: text('url').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
})
