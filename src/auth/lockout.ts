import { sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { rowsOf } from '../db/rows.ts'
import { fail } from '../lib/errors.ts'

/**
 * Login lock-out counted per e-mail AND address together: failed passwords
 * from one address lock that address out of that account, with a backoff
 * that doubles per further failure (window/15, then twice that, ... up to the
 * window; 1, 2, 4, 8, 15 minutes by default). The owner signing in from
 * elsewhere is never locked out by someone else's guesses; the per-address
 * limit on all attempts (rate-limit.ts) bounds how many accounts one address
 * can try. A success clears the pair. Kept in `rate_limits` (key
 * `login:fail:<email>:<ip>`, `count` failures, `reset_at` = last failure +
 * window), so every app process shares it. Used by password sign-in; other
 * sign-in routes (tokens, providers) can call the same three functions.
 */
export interface LockoutPolicy {
  max: number
  windowSeconds: number
}

const keyOf = (email: string, ip: string) => `login:fail:${email}:${ip}`

/** Seconds a pair with `failures` failures is locked for after its last one. */
export function backoffSeconds(failures: number, policy: LockoutPolicy): number {
  if (failures < policy.max) return 0
  const base = Math.max(1, Math.round(policy.windowSeconds / 15))
  return Math.min(policy.windowSeconds, base * 2 ** (failures - policy.max))
}

/** Throws 429 with Retry-After while this address is locked out of this account. */
export async function assertNotLockedOut(db: Db, email: string, ip: string, policy: LockoutPolicy): Promise<void> {
  const [row] = rowsOf<{ count: number; remaining: number }>(
    await db.execute(sql`select count, extract(epoch from reset_at - now())::float8 as remaining from rate_limits where key = ${keyOf(email, ip)}`),
  )
  if (!row || row.remaining <= 0) return
  // seconds since the last failure = window - remaining
  const locked = backoffSeconds(row.count, policy) - (policy.windowSeconds - row.remaining)
  if (locked > 0) fail(429, 'Too many attempts, try again later.', { 'Retry-After': String(Math.max(1, Math.ceil(locked))) })
}

export async function recordLoginFailure(db: Db, email: string, ip: string, policy: LockoutPolicy): Promise<void> {
  await db.execute(sql`
    insert into rate_limits (key, count, reset_at)
    values (${keyOf(email, ip)}, 1, now() + make_interval(secs => ${policy.windowSeconds}))
    on conflict (key) do update set
      count = case when rate_limits.reset_at <= now() then 1 else rate_limits.count + 1 end,
      reset_at = excluded.reset_at`)
}

export async function clearLoginFailures(db: Db, email: string, ip: string): Promise<void> {
  await db.execute(sql`delete from rate_limits where key = ${keyOf(email, ip)}`)
}
