import type { AppContext } from '../context.ts'
import { deleteFailure, getFailure, listFailures } from '../jobs/history.ts'
import { fail } from '../lib/errors.ts'
import type { AdminFailedJob } from './schema.ts'

/** Failed jobs with their reasons and owners, newest first. */
export async function adminFailedJobs(ctx: AppContext): Promise<AdminFailedJob[]> {
  return (await listFailures(ctx.db)).map((f) => ({
    id: f.id,
    jobId: f.jobId,
    name: f.name,
    error: f.error,
    owner: f.owner,
    failedAt: f.failedAt.toISOString(),
  }))
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
