import type { AppContext } from '../context.ts'
import { deleteFailure, getFailure, listFailures } from '../jobs/history.ts'
import { fail } from '../lib/errors.ts'
import type { AdminFailedJob } from './schema.ts'

/**
 * Failed jobs with their reasons, owners and what they worked on, newest first. A failure whose
 * item its owner has deleted since (a music job removed from the list) is dropped, not listed.
 */
export async function adminFailedJobs(ctx: AppContext): Promise<AdminFailedJob[]> {
  const listed: AdminFailedJob[] = []
  for (const f of await listFailures(ctx.db)) {
    const title = await describe(ctx, f.name, f.payload)
    if (title === null) {
      await deleteFailure(ctx.db, f.id)
      continue
    }
    listed.push({ id: f.id, jobId: f.jobId, name: f.name, title: title ?? null, error: f.error, owner: f.owner, failedAt: f.failedAt.toISOString() })
  }
  return listed
}

/** The job's item in words; null when it is gone; undefined when the job does not say. */
async function describe(ctx: AppContext, name: string, payload: unknown): Promise<string | null | undefined> {
  const def = await definition(name)
  const parsed = def?.describe && def.payload.safeParse(payload)
  return parsed?.success ? def!.describe!(ctx, parsed.data) : undefined
}

async function definition(name: string) {
  const { jobModules } = await import('../jobs/registry.ts')
  return jobModules.flatMap((m) => m.definitions).find((d) => d.name === name)
}

/** Queues a failed job again (same payload, same job id so a user's job keeps its identity); its failure is removed. */
export async function retryFailedJob(ctx: AppContext, id: string): Promise<string> {
  const failure = await getFailure(ctx.db, id)
  if (!failure) fail(404, 'Job not found.')
  const def = await definition(failure.name)
  if (!def) fail(409, 'This job no longer exists.')
  const payload = def.payload.safeParse(failure.payload)
  if (!payload.success) fail(409, 'This job no longer exists.')
  if (def.describe && (await def.describe(ctx, payload.data)) === null) {
    await deleteFailure(ctx.db, id)
    fail(409, 'Its owner has deleted what this job worked on: there is nothing to retry.')
  }
  await def.beforeRetry?.(ctx, payload.data)
  const jobId = await ctx.jobs.enqueue(def, payload.data, { jobId: failure.jobId })
  await deleteFailure(ctx.db, id)
  return jobId
}

export async function deleteFailedJob(ctx: AppContext, id: string) {
  if (!(await deleteFailure(ctx.db, id))) fail(404, 'Job not found.')
}

/** Queues a schedule's job now ("run now"). */
export async function runSchedule(ctx: AppContext, name: string): Promise<string> {
  const { jobModules } = await import('../jobs/registry.ts')
  const schedule = jobModules.flatMap((m) => m.schedules ?? []).find((s) => s.id === name)
  if (!schedule) fail(404, 'Schedule not found.')
  return ctx.jobs.enqueue(schedule.job, schedule.payload)
}
