import { sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { fail } from './errors.ts'

/**
 * Fixed-window counter kept in the database so every app process shares it.
 * Throws 429 with Retry-After once `max` hits fall in the window.
 */
export async function hit(db: Db, key: string, max: number, windowSeconds: number): Promise<void> {
  const rows = await db.execute<{ count: number; retry: number }>(sql`
    insert into rate_limits (key, count, reset_at)
    values (${key}, 1, now() + make_interval(secs => ${windowSeconds}))
    on conflict (key) do update set
      count = case when rate_limits.reset_at <= now() then 1 else rate_limits.count + 1 end,
      reset_at = case when rate_limits.reset_at <= now() then excluded.reset_at else rate_limits.reset_at end
    returning count, ceil(extract(epoch from reset_at - now()))::int as retry`)
  const row = (Array.isArray(rows) ? rows[0] : (rows as { rows: { count: number; retry: number }[] }).rows[0])!
  if (row.count > max) {
    fail(429, 'Too many attempts, try again later.', { 'Retry-After': String(Math.max(1, row.retry)) })
  }
}
