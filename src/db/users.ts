import { boolean, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/**
 * The accounts. Owned by src/auth/ (which exports it from its tables.ts); kept here
 * because the lower floors (the job history, src/jobs/) reference it too.
 */
export const users = pgTable('users', {
  id: uuid('id').primaryKey().defaultRandom(),
  /** Stored lower-cased; unique. */
  email: text('email').notNull().unique(),
  /** Null for an account made through an identity provider that never set a password. */
  passwordHash: text('password_hash'),
  admin: boolean('admin').notNull().default(false),
  verifiedAt: ts('verified_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
  /** Set by an admin: the user's sessions and tokens stop at once and sign-in is refused. */
  disabledAt: ts('disabled_at'),
  /** Last request with a session, recorded at most hourly (src/auth/session.ts). */
  lastSeenAt: ts('last_seen_at'),
})
