import { sql } from 'drizzle-orm'
import { users } from '../db/users.ts'
import { index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

// the accounts table sits in src/db/ because lower floors (jobs) reference it too
export { users }

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

/** Personal API tokens (`Authorization: Bearer`); only the SHA-256 of the token is kept (hex). */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    hash: text('hash').notNull().unique(),
    createdAt: ts('created_at').notNull().defaultNow(),
    lastUsedAt: ts('last_used_at'),
    /** Chosen at creation; null: the token does not expire. Past it the token is refused like a revoked one. */
    expiresAt: ts('expires_at'),
  },
  (t) => [index('api_tokens_user_idx').on(t.userId)],
)

/** A sign-in identity at an OpenID Connect provider (`sub`), linked to one user. */
export const userIdentities = pgTable(
  'user_identities',
  {
    provider: text('provider').notNull(),
    subject: text('subject').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.subject] }), index('user_identities_user_idx').on(t.userId)],
)
