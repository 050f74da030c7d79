import { asc, count, eq, ilike, sql } from 'drizzle-orm'
import type { AppContext } from '../context.ts'
import type { Db } from '../db/client.ts'
import { deleteAccount } from '../auth/account.ts'
import { assertNotLastAdmin, lockAdminChanges } from '../auth/admins.ts'
import { sessionCache } from '../auth/session-cache.ts'
import { sessions, users } from '../auth/tables.ts'
import { fail } from '../lib/errors.ts'
import { musicJobs } from '../music/tables.ts'
import { youtubeSubscriptions } from '../youtube/tables.ts'
import { youtubeKeepQuotas, youtubeKeeps, youtubeKeptFiles } from '../youtube/keep/tables.ts'
import { setQuota } from '../youtube/keep/usage.ts'
import type { AdminUser } from './schema.ts'

/**
 * The admin's user management (GET/PATCH/DELETE /api/admin/users and the
 * matching scripts/admin.ts commands). "Admins" here are enabled admins:
 * the last one can be neither demoted, disabled nor deleted.
 */

// drizzle leaves column names unqualified inside sql``: the correlated subqueries name their tables themselves
const jobCount = sql<number>`(select count(*)::int from ${musicJobs} j where j.user_id = "users"."id")`
const subscriptionCount = sql<number>`(select count(*)::int from ${youtubeSubscriptions} s where s.user_id = "users"."id" and s.deleted_at is null)`

// keeping videos: the quota, and each file the user keeps counted in full (src/youtube/keep/usage.ts)
const keepQuotaMb = sql<number | null>`(select q.quota_mb from ${youtubeKeepQuotas} q where q.user_id = "users"."id")`
const keepUsedBytes = sql<number>`(select coalesce(sum(f.size), 0) from ${youtubeKeeps} k join ${youtubeKeptFiles} f on f.video_id = k.video_id
  where k.user_id = "users"."id" and k.removed_at is null and k.error_kind is null and f.file is not null)`

const columns = {
  id: users.id,
  email: users.email,
  admin: users.admin,
  verifiedAt: users.verifiedAt,
  disabledAt: users.disabledAt,
  createdAt: users.createdAt,
  lastSeenAt: users.lastSeenAt,
  jobCount,
  subscriptionCount,
  keepQuotaMb,
  keepUsedBytes,
}

type Row = {
  [K in keyof typeof columns]: K extends 'jobCount' | 'subscriptionCount' | 'keepUsedBytes' ? number : K extends 'keepQuotaMb' ? number | null : (typeof users.$inferSelect)[K & keyof typeof users.$inferSelect]
}

function toAdminUser(r: Row): AdminUser {
  return {
    id: r.id,
    email: r.email,
    admin: r.admin,
    verified: !!r.verifiedAt,
    disabled: !!r.disabledAt,
    createdAt: r.createdAt.toISOString(),
    lastSeenAt: r.lastSeenAt?.toISOString() ?? null,
    jobCount: Number(r.jobCount),
    subscriptionCount: Number(r.subscriptionCount),
    keepQuotaMb: r.keepQuotaMb === null ? null : Number(r.keepQuotaMb),
    keepUsedBytes: Number(r.keepUsedBytes),
  }
}

/** `%`, `_` and `\` typed in a search are literal characters. */
const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** Users by e-mail, optionally those whose e-mail contains `q`. */
export async function listUsers(db: Db, opts: { page: number; perPage: number; q?: string }) {
  const where = opts.q ? ilike(users.email, likePattern(opts.q)) : undefined
  const [total] = await db.select({ n: count() }).from(users).where(where)
  const rows = await db
    .select(columns)
    .from(users)
    .where(where)
    .orderBy(asc(users.email))
    .limit(opts.perPage)
    .offset((opts.page - 1) * opts.perPage)
  return { users: rows.map(toAdminUser), totalPages: Math.ceil((total?.n ?? 0) / opts.perPage) }
}

export async function getAdminUser(db: Db, id: string): Promise<AdminUser | null> {
  const [row] = await db.select(columns).from(users).where(eq(users.id, id))
  return row ? toAdminUser(row) : null
}

export async function findUserIdByEmail(db: Db, email: string): Promise<string | null> {
  const [row] = await db.select({ id: users.id }).from(users).where(eq(users.email, email.toLowerCase()))
  return row?.id ?? null
}

/**
 * Grants/revokes admin and disables/enables. Disabling ends the user's
 * sessions at once (rows deleted, this process's cache forgotten; other
 * processes within the session cache's few seconds, src/auth/session-cache.ts).
 */
export async function updateUser(db: Db, id: string, change: { admin?: boolean; disabled?: boolean; keepQuotaMb?: number | null }): Promise<AdminUser> {
  await db.transaction(async (tx) => {
    // the check and the change under one lock: two admins demoting each other cannot both succeed (src/auth/admins.ts)
    await lockAdminChanges(tx)
    const [user] = await tx.select().from(users).where(eq(users.id, id))
    if (!user) fail(404, 'User not found.')
    if (change.admin === false || change.disabled === true) await assertNotLastAdmin(tx, id)
    const values: Partial<typeof users.$inferInsert> = {}
    if (change.admin !== undefined) values.admin = change.admin
    if (change.disabled !== undefined) values.disabledAt = change.disabled ? (user.disabledAt ?? new Date()) : null
    if (Object.keys(values).length) await tx.update(users).set(values).where(eq(users.id, id))
    if (change.disabled) await tx.delete(sessions).where(eq(sessions.userId, id))
    if (change.keepQuotaMb !== undefined) await setQuota(tx, id, change.keepQuotaMb)
  })
  sessionCache(db).forgetUser({ id })
  return (await getAdminUser(db, id))!
}

/** Deletes a user with all their data, as account deletion does (src/auth/account.ts); never the last admin. */
export async function deleteUser(ctx: AppContext, id: string): Promise<void> {
  const [user] = await ctx.db.select().from(users).where(eq(users.id, id))
  if (!user) fail(404, 'User not found.')
  await deleteAccount(ctx, user)
}
