import { integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'
import { youtubeChannels } from '../tables.ts'

// WebSub: one subscription per channel at the hub (docs/decisions/255).

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/**
 * `state`: `subscribing` (asked, the hub has not verified yet), `active` (verified; lease until
 * `leaseExpiresAt`), `unsubscribing` (nobody follows any more; asked the hub to stop). The token
 * is the callback path's secret part, the secret signs the hub's deliveries; both random.
 */
export const youtubeWebsub = pgTable(
  'youtube_websub',
  {
    channelId: text('channel_id')
      .primaryKey()
      .references(() => youtubeChannels.id, { onDelete: 'cascade' }),
    token: text('token').notNull(),
    secret: text('secret').notNull(),
    topic: text('topic').notNull(),
    state: text('state', { enum: ['subscribing', 'active', 'unsubscribing'] }).notNull(),
    requestedAt: ts('requested_at').notNull().defaultNow(),
    leaseSeconds: integer('lease_seconds'),
    verifiedAt: ts('verified_at'),
    leaseExpiresAt: ts('lease_expires_at'),
    lastPushAt: ts('last_push_at'),
    /** When a push last queued a refresh: at most one a minute per channel. */
    lastQueuedAt: ts('last_queued_at'),
    lastError: text('last_error'),
  },
  (t) => [uniqueIndex('youtube_websub_token_idx').on(t.token)],
)
