import { and, eq, isNull, ne, sql } from 'drizzle-orm'
import type { Tx } from '../db/client.ts'
import { fail } from '../lib/errors.ts'
import { users } from './tables.ts'

/**
 * The last enabled admin stays: every change that can take an admin away
 * (demote, disable, delete by an admin, deleting one's own account) checks and
 * changes inside one transaction that first takes this transaction-scoped
 * advisory lock, so two such changes run one after the other on PostgreSQL,
 * across app processes (PGlite runs one transaction at a time anyway). The
 * second one then reads what the first committed. See docs/decisions/158-last-admin-lock.md.
 */
const ADMIN_CHANGE_LOCK = 0x7475_6e65 // "tune": one fixed key for every admin change

export async function lockAdminChanges(tx: Tx): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${ADMIN_CHANGE_LOCK})`)
}

/**
 * 409 `Cannot remove the last admin.` when user `id` is an enabled admin and
 * no other enabled admin exists. Call after lockAdminChanges, in the same
 * transaction as the change itself.
 */
export async function assertNotLastAdmin(tx: Tx, id: string): Promise<void> {
  const [me] = await tx.select({ admin: users.admin, disabledAt: users.disabledAt }).from(users).where(eq(users.id, id))
  if (!me?.admin || me.disabledAt) return
  const [other] = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.admin, true), isNull(users.disabledAt), ne(users.id, id)))
    .limit(1)
  if (!other) fail(409, 'Cannot remove the last admin.')
}
