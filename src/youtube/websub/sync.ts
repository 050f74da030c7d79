import { randomBytes } from 'node:crypto'
import { and, eq, sql } from 'drizzle-orm'
import type { AppContext } from '../../context.ts'
import { rowsOf } from '../../db/rows.ts'
import { errorFields, log } from '../../lib/logger.ts'
import { askHub, topicUrl } from './hub.ts'
import { websubEnabled } from './public-url.ts'
import { youtubeWebsub } from './tables.ts'

type Ctx = Pick<AppContext, 'db' | 'env' | 'allow'>
type Row = typeof youtubeWebsub.$inferSelect

/** A request the hub has not verified is asked again after this long. */
const RETRY_MS = 10 * 60 * 1000
/** An unsubscription the hub never confirms is forgotten after this long (the lease ends anyway). */
const FORGET_MS = 24 * 3600 * 1000

const random = () => randomBytes(24).toString('base64url')

/** Followed channels (stored, someone's active subscription). */
async function followedChannels(db: Ctx['db']): Promise<Set<string>> {
  const rows = rowsOf<{ id: string }>(
    await db.execute(sql`select distinct s.channel_id as id from youtube_subscriptions s join youtube_channels c on c.id = s.channel_id where s.deleted_at is null`),
  )
  return new Set(rows.map((r) => r.id))
}

/** A renewal is due once 80 % of the granted lease has passed, whatever its length. */
export function renewalDue(row: Pick<Row, 'verifiedAt' | 'leaseExpiresAt'>, now = Date.now()): boolean {
  if (!row.verifiedAt || !row.leaseExpiresAt) return true
  const start = row.verifiedAt.getTime()
  return now >= start + 0.8 * (row.leaseExpiresAt.getTime() - start)
}

async function ask(ctx: Ctx, row: Pick<Row, 'channelId' | 'topic' | 'token' | 'secret'>, mode: 'subscribe' | 'unsubscribe') {
  // stamped before asking: the hub may verify before its answer to this request arrives
  await ctx.db.update(youtubeWebsub).set({ requestedAt: new Date() }).where(eq(youtubeWebsub.channelId, row.channelId))
  try {
    await askHub(ctx, mode, row)
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    log.warn('websub request failed', { channelId: row.channelId, mode, ...errorFields(err) })
    await ctx.db.update(youtubeWebsub).set({ lastError: message }).where(eq(youtubeWebsub.channelId, row.channelId))
  }
}

/**
 * One pass (every minute): subscribe followed channels without a subscription, ask again when the
 * hub has not verified within 10 minutes, renew leases 80 % through, unsubscribe channels nobody
 * follows. Does nothing while WebSub is off (a private PUBLIC_URL).
 */
export async function syncWebsub(ctx: Ctx, now = Date.now()): Promise<{ subscribed: number; renewed: number; unsubscribed: number }> {
  const done = { subscribed: 0, renewed: 0, unsubscribed: 0 }
  if (!(await websubEnabled(ctx.env))) return done
  const followed = await followedChannels(ctx.db)
  const rows = await ctx.db.select().from(youtubeWebsub)
  const known = new Map(rows.map((r) => [r.channelId, r]))
  const stale = (r: Row) => now - r.requestedAt.getTime() >= RETRY_MS
  for (const channelId of followed) {
    const row = known.get(channelId)
    if (!row) {
      const fresh = { channelId, token: random(), secret: random(), topic: topicUrl(ctx.env, channelId), state: 'subscribing' as const }
      const [inserted] = await ctx.db.insert(youtubeWebsub).values(fresh).onConflictDoNothing().returning()
      if (inserted) {
        await ask(ctx, inserted, 'subscribe')
        done.subscribed++
      }
    } else if (row.state === 'unsubscribing') {
      // followed again before the hub confirmed: a new secret, and subscribe again
      const back = { state: 'subscribing' as const, secret: random(), verifiedAt: null, leaseExpiresAt: null }
      await ctx.db.update(youtubeWebsub).set(back).where(eq(youtubeWebsub.channelId, channelId))
      await ask(ctx, { ...row, ...back }, 'subscribe')
      done.subscribed++
    } else if (row.state === 'subscribing' ? stale(row) : renewalDue(row, now) && (stale(row) || (row.verifiedAt && row.requestedAt <= row.verifiedAt))) {
      await ask(ctx, row, 'subscribe')
      if (row.state === 'active') done.renewed++
      else done.subscribed++
    }
  }
  for (const row of rows) {
    if (followed.has(row.channelId)) continue
    if (row.state !== 'unsubscribing') {
      await ctx.db.update(youtubeWebsub).set({ state: 'unsubscribing' }).where(eq(youtubeWebsub.channelId, row.channelId))
      await ask(ctx, row, 'unsubscribe')
      done.unsubscribed++
    } else if (now - row.requestedAt.getTime() >= FORGET_MS) {
      await ctx.db.delete(youtubeWebsub).where(and(eq(youtubeWebsub.channelId, row.channelId), eq(youtubeWebsub.state, 'unsubscribing')))
    }
  }
  return done
}

/** Channels whose live subscription lets the hourly pass skip them when refreshed within 6 hours (decision 256). */
export async function pushCoveredChannels(db: Ctx['db']): Promise<Set<string>> {
  const rows = rowsOf<{ id: string }>(
    await db.execute(sql`
      select w.channel_id as id from youtube_websub w join youtube_channels c on c.id = w.channel_id
      where w.state = 'active' and w.lease_expires_at > now() and c.refreshed_at > now() - interval '6 hours'`),
  )
  return new Set(rows.map((r) => r.id))
}

