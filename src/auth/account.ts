import { readdir, readFile, rm } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { eq, sql } from 'drizzle-orm'
import type { AppContext } from '../context.ts'
import type { Db } from '../db/client.ts'
import { musicJobs } from '../music/tables.ts'
import { sessionCache } from './session-cache.ts'
import { fail } from '../lib/errors.ts'
import { assertNotLastAdmin, lockAdminChanges } from './admins.ts'
import { users } from './tables.ts'

/**
 * Removes a user and everything of theirs: the user row (its jobs, sessions,
 * API tokens, identities, WebDAV account, subscriptions and marks go with it
 * through the foreign keys), running jobs, their files under DATA_DIR, mails
 * saved for them (no SMTP_URL) and rate-limit counters naming them; their
 * listen sockets are closed. The last enabled admin is refused (409
 * `Cannot remove the last admin.`) and keeps everything.
 * See docs/decisions/071-account-changes-and-deletion.md. Used by DELETE /api/auth/account.
 */
export async function deleteAccount(ctx: AppContext, user: { id: string; email: string }) {
  const { db, env } = ctx
  const jobs = await db.select({ id: musicJobs.id }).from(musicJobs).where(eq(musicJobs.userId, user.id))
  // the rows go first so a running job cannot record anything after this; never the last admin,
  // checked under the admin-change lock in the same transaction (src/auth/admins.ts)
  const gone = await db.transaction(async (tx) => {
    await lockAdminChanges(tx)
    await assertNotLastAdmin(tx, user.id)
    return tx.delete(users).where(eq(users.id, user.id)).returning({ id: users.id })
  })
  if (!gone.length) fail(404, 'User not found.')
  sessionCache(db).forgetUser({ id: user.id })
  ctx.hub.closeSessions({ userId: user.id })
  for (const job of jobs) await ctx.jobs.cancel(job.id)
  await rm(resolve(env.DATA_DIR, 'music', user.id), { recursive: true, force: true })
  await deleteSavedMails(env.DATA_DIR, user.email)
  await deleteRateLimits(db, [user.id, user.email])
  await forgetTurns(db, user.id)
}

/**
 * The fair YouTube turns name their owner (docs/decisions/220): a deleted person's queue
 * sequence and waiting tickets go; their recent starts still count for the hourly limit, as the
 * app's own (no owner).
 */
async function forgetTurns(db: Db, userId: string) {
  await db.execute(sql`delete from job_fair_owners where owner = ${userId}`)
  await db.execute(sql`delete from youtube_waiters where owner = ${userId}`)
  await db.execute(sql`update youtube_starts set owner = null where owner = ${userId}`)
}

/** Counters are keyed `<action>:<kind>:<value>[:…]`: drop every one naming a value. */
async function deleteRateLimits(db: Db, values: string[]) {
  for (const value of values) {
    await db.execute(sql`delete from rate_limits where right(key, ${value.length + 1}) = ${`:${value}`} or strpos(key, ${`:${value}:`}) > 0`)
  }
}

/** Without SMTP_URL every mail is saved under DATA_DIR/mail (src/lib/mailer.ts): drop the ones sent to `email`. */
async function deleteSavedMails(dataDir: string, email: string) {
  const dir = join(dataDir, 'mail')
  const names = await readdir(dir).catch(() => [] as string[])
  const to = email.toLowerCase()
  for (const name of names) {
    if (!name.endsWith('.eml')) continue
    const file = join(dir, name)
    const text = await readFile(file, 'utf8').catch(() => '')
    const header = text.slice(0, text.indexOf('\n\n') >>> 0)
    const recipient = /^To:\s*(.*)$/im.exec(header)?.[1]?.trim().toLowerCase() ?? ''
    if (recipient === to || recipient.endsWith(`<${to}>`)) await rm(file, { force: true })
  }
}
