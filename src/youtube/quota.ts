import { eq, sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { rowsOf } from '../db/rows.ts'
import { youtubeQuotaDays } from './tables.ts'

/**
 * The YouTube Data API's daily quota resets at midnight Pacific time. Every
 * call reserves its units here before it is sent (an atomic conditional
 * upsert), so several workers never overshoot the budget between them.
 */
const PACIFIC = 'America/Los_Angeles'
const dayFormat = new Intl.DateTimeFormat('en-CA', { timeZone: PACIFIC, year: 'numeric', month: '2-digit', day: '2-digit' })

/** `YYYY-MM-DD` in Pacific time: the quota day `at` falls in. */
export function quotaDay(at: Date = new Date()): string {
  return dayFormat.format(at)
}

/** The instant the quota day of `at` ends (next Pacific midnight). */
export function quotaResetAt(at: Date = new Date()): Date {
  const [y, m, d] = quotaDay(at).split('-').map(Number) as [number, number, number]
  const next = quotaDay(new Date(Date.UTC(y, m - 1, d + 1, 12)))
  // Pacific midnight is 07:00 or 08:00 UTC depending on daylight saving time
  for (const hour of [7, 8]) {
    const candidate = new Date(Date.UTC(y, m - 1, d + 1, hour))
    if (quotaDay(candidate) === next && quotaDay(new Date(candidate.getTime() - 1)) !== next) return candidate
  }
  return new Date(Date.UTC(y, m - 1, d + 1, 8))
}

/** Thrown when the day's budget is spent or the API said quotaExceeded: stop, resume after `resetsAt`. */
export class QuotaExhausted extends Error {
  constructor(
    readonly reason: string,
    readonly resetsAt: Date,
  ) {
    super(`YouTube quota exhausted: ${reason} Resumes after ${resetsAt.toISOString()}.`)
    this.name = 'QuotaExhausted'
  }
}

/** Reserves `units` for one call or throws QuotaExhausted (marking the day with its cause). */
export async function reserveUnits(db: Db, units: number, budget: number, now = new Date()): Promise<void> {
  const day = quotaDay(now)
  const rows = rowsOf<{ units: number }>(
    await db.execute(sql`
      insert into youtube_quota_days (day, units, calls, updated_at)
      select ${day}, ${units}, 1, now() where ${units} <= ${budget}
      on conflict (day) do update set
        units = youtube_quota_days.units + excluded.units,
        calls = youtube_quota_days.calls + 1,
        updated_at = now()
      where youtube_quota_days.exhausted_at is null
        and youtube_quota_days.units + excluded.units <= ${budget}
      returning units`),
  )
  if (rows.length > 0) return
  const cause = await markExhausted(db, `Daily budget of ${budget} units reached.`, now)
  throw new QuotaExhausted(cause, quotaResetAt(now))
}

/** Gives back units reserved for a call that never reached the API (network error) or was refused for quota. */
export async function refundUnits(db: Db, units: number, now = new Date()): Promise<void> {
  await db
    .update(youtubeQuotaDays)
    .set({
      units: sql`greatest(0, ${youtubeQuotaDays.units} - ${units})`,
      calls: sql`greatest(0, ${youtubeQuotaDays.calls} - 1)`,
    })
    .where(eq(youtubeQuotaDays.day, quotaDay(now)))
}

/** Marks the day exhausted; the first cause is kept. Returns the cause in force. */
export async function markExhausted(db: Db, cause: string, now = new Date()): Promise<string> {
  const day = quotaDay(now)
  const [row] = await db
    .insert(youtubeQuotaDays)
    .values({ day, units: 0, calls: 0, exhaustedAt: now, cause })
    .onConflictDoUpdate({
      target: youtubeQuotaDays.day,
      set: {
        exhaustedAt: sql`coalesce(${youtubeQuotaDays.exhaustedAt}, ${now.toISOString()}::timestamptz)`,
        cause: sql`coalesce(${youtubeQuotaDays.cause}, ${cause})`,
        updatedAt: sql`now()`,
      },
    })
    .returning({ cause: youtubeQuotaDays.cause })
  return row?.cause ?? cause
}

export interface QuotaStatus {
  day: string
  units: number
  calls: number
  budget: number
  exhausted: boolean
  exhaustedAt: string | null
  cause: string | null
  resetsAt: string
}

/** Today's ledger line, for the admin and the CLI. */
export async function quotaStatus(db: Db, budget: number, now = new Date()): Promise<QuotaStatus> {
  const day = quotaDay(now)
  const [row] = await db.select().from(youtubeQuotaDays).where(eq(youtubeQuotaDays.day, day))
  return {
    day,
    units: row?.units ?? 0,
    calls: row?.calls ?? 0,
    budget,
    exhausted: !!row?.exhaustedAt,
    exhaustedAt: row?.exhaustedAt?.toISOString() ?? null,
    cause: row?.cause ?? null,
    resetsAt: quotaResetAt(now).toISOString(),
  }
}

/** Throws QuotaExhausted when today is already marked: a cheap check before starting a batch. */
export async function assertQuotaLeft(db: Db, now = new Date()): Promise<void> {
  const [row] = await db.select().from(youtubeQuotaDays).where(eq(youtubeQuotaDays.day, quotaDay(now)))
  if (row?.exhaustedAt) throw new QuotaExhausted(row.cause ?? 'quota exhausted.', quotaResetAt(now))
}

/**
 * Each user's share of the day (YOUTUBE_USER_DAILY_UNITS): units spent on
 * their behalf (resolving and first-loading the channels they import or add)
 * are charged before the work is queued, in `rate_limits` under
 * `youtube-units:<userId>` until the Pacific reset. One user's 5,000-channel
 * import can no longer take everyone's day. Answers the units left when the
 * charge does not fit (nothing is charged then), or null when it was charged.
 */
export async function chargeUserUnits(db: Db, userId: string, units: number, share: number, now = new Date()): Promise<number | null> {
  if (units <= 0) return null
  const key = `youtube-units:${userId}`
  const resetAt = quotaResetAt(now).toISOString()
  const rows = rowsOf<{ count: number }>(
    await db.execute(sql`
      insert into rate_limits (key, count, reset_at)
      select ${key}, ${units}::int, ${resetAt}::timestamptz where ${units}::int <= ${share}::int
      on conflict (key) do update set
        count = case when rate_limits.reset_at <= now() then excluded.count else rate_limits.count + excluded.count end,
        reset_at = excluded.reset_at
      where (case when rate_limits.reset_at <= now() then 0 else rate_limits.count end) + excluded.count <= ${share}::int
      returning count`),
  )
  if (rows.length > 0) return null
  const [row] = rowsOf<{ used: number }>(
    await db.execute(sql`select case when reset_at <= now() then 0 else count end as used from rate_limits where key = ${key}`),
  )
  return Math.max(0, share - (row?.used ?? 0))
}

/** Units a first refresh of a channel may take: its backfill paged (1 per 50) and fetched (1 per 50). */
export const firstRefreshUnits = (backfillVideos: number) => 2 * Math.ceil(backfillVideos / 50)
