import { sql } from 'drizzle-orm'
import { boolean, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

export const users = pgTable('users', {
  id: uuid('id').primaryKey().defaultRandom(),
  /** Stored lower-cased; unique. */
  email: text('email').notNull().unique(),
  passwordHash: text('password_hash').notNull(),
  admin: boolean('admin').notNull().default(false),
  verifiedAt: ts('verified_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
  /** Set by an admin: the user's sessions and tokens stop at once and sign-in is refused. */
  disabledAt: ts('disabled_at'),
  /** Last request with a session, recorded at most hourly (src/auth/session.ts). */
  lastSeenAt: ts('last_seen_at'),
})

/** Only the SHA-256 of the session token is kept (hex). */
export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: ts('expires_at').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
)

/** Single-use tokens for e-mail verification and password reset; only their hash is stored. */
export const authTokens = pgTable(
  'auth_tokens',
  {
    hash: text('hash').primaryKey(),
    kind: text('kind', { enum: ['verify', 'reset'] }).notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('auth_tokens_user_idx').on(t.userId, t.kind)],
)

/** Fixed-window counters shared by every app process. */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  count: integer('count').notNull().default(0),
  resetAt: ts('reset_at').notNull().default(sql`now()`),
})
