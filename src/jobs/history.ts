import { desc, eq, sql } from 'drizzle-orm'
import type { AppContext } from '../context.ts'
import type { Db } from '../db/client.ts'
import { users } from '../db/users.ts'
import { errorFields, log } from '../lib/logger.ts'
import { jobFailures, scheduleRuns } from './tables.ts'
import type { JobDefinition, ScheduleDefinition } from './types.ts'

/**
 * What the queue remembers for the admin (src/admin/): jobs it gave up on and
 * the last run of each schedule. Recording never fails a job: errors are logged.
 */

/** The schedule a run belongs to: same job and same payload (a manual run of that job counts too). */
export function scheduleOf(schedules: ScheduleDefinition<any>[], name: string, payload: unknown) {
  const key = JSON.stringify(payload ?? {})
  return schedules.find((s) => s.job.name === name && JSON.stringify(s.payload) === key)
}

export async function recordScheduleRun(db: Db, id: string, outcome: 'completed' | 'failed', error: string | null = null) {
  try {
    const row = { id, lastRunAt: new Date(), lastOutcome: outcome, lastError: error }
    await db.insert(scheduleRuns).values(row).onConflictDoUpdate({ target: scheduleRuns.id, set: row })
  } catch (err) {
    log.warn('schedule run not recorded', { id, ...errorFields(err) })
  }
}

export async function recordFailure(ctx: AppContext, def: JobDefinition<any>, jobId: string, payload: unknown, error: Error) {
  try {
    const userId = (await def.owner?.(ctx, payload)) ?? null
    await ctx.db.insert(jobFailures).values({ jobId, name: def.name, payload: payload ?? {}, error: error.message, userId })
  } catch (err) {
    log.warn('job failure not recorded', { job: def.name, id: jobId, ...errorFields(err) })
  }
}

export async function listScheduleRuns(db: Db) {
  return db.select().from(scheduleRuns)
}

export interface FailedJob {
  id: string
  jobId: string
  name: string
  payload: unknown
  error: string
  owner: { id: string; email: string } | null
  failedAt: Date
}

/** Failed jobs, newest first, with their owners' e-mails. */
export async function listFailures(db: Db, limit = 100): Promise<FailedJob[]> {
  const rows = await db
    .select({ f: jobFailures, email: users.email })
    .from(jobFailures)
    .leftJoin(users, eq(users.id, jobFailures.userId))
    .orderBy(desc(jobFailures.failedAt), desc(jobFailures.id))
    .limit(limit)
  return rows.map(({ f, email }) => ({
    id: f.id,
    jobId: f.jobId,
    name: f.name,
    payload: f.payload,
    error: f.error,
    owner: f.userId && email ? { id: f.userId, email } : null,
    failedAt: f.failedAt,
  }))
}

export async function countFailures(db: Db): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(jobFailures)
  return row?.n ?? 0
}

export async function getFailure(db: Db, id: string) {
  const [row] = await db.select().from(jobFailures).where(eq(jobFailures.id, id))
  return row ?? null
}

export async function deleteFailure(db: Db, id: string): Promise<boolean> {
  return (await db.delete(jobFailures).where(eq(jobFailures.id, id)).returning({ id: jobFailures.id })).length > 0
}

/** A job run again by its owner: its earlier failure leaves the admin's list. */
export async function deleteFailuresOfJob(db: Db, jobId: string) {
  await db.delete(jobFailures).where(eq(jobFailures.jobId, jobId))
}
