import { z } from 'zod'
import type { AppContext } from '../context.ts'
import type { JobDefinition, JobModule } from '../jobs/types.ts'
import { canaryDue, runCanary } from './canary.ts'

/** `tools.checkYtdlp`: one check of the managed yt-dlp's channel (src/tools/managed.ts). */
export const checkYtdlpJob: JobDefinition<Record<string, never>> = {
  name: 'tools.checkYtdlp',
  payload: z.object({}).strict() as z.ZodType<Record<string, never>>,
  // a failed check is recorded in the managed state and tried again at the next one
  attempts: 1,
  timeoutMs: 15 * 60 * 1000,
  run: async (ctx) => void (await ctx.tools.managed.update()),
}

/** `tools.canary`: extracts YTDLP_CANARY_URL (src/tools/canary.ts); after an update, may switch back. */
export const canaryJob: JobDefinition<{ trigger: 'schedule' | 'start' | 'admin' | 'update' }> = {
  name: 'tools.canary',
  payload: z.object({ trigger: z.enum(['schedule', 'start', 'admin', 'update']) }).strict(),
  // the result is recorded either way; the next day's (or the admin's) run tries again
  attempts: 1,
  // YouTube's pacing may make it wait its turn (src/tools/toolbox.ts withYtdlp)
  timeoutMs: 30 * 60 * 1000,
  run: async (ctx, { trigger }) => void (await runCanary(ctx, trigger)),
}

/**
 * At start-up: a check of the managed yt-dlp (the daily schedule does the
 * rest), and the canary when the scheduler runs and it has no result from
 * the last day. After each update the canary runs on the new build.
 */
async function checkAtStart(ctx: AppContext) {
  ctx.tools.managed.onUpdated = async () => void (await ctx.jobs.enqueue(canaryJob, { trigger: 'update' }))
  if (ctx.tools.managed.enabled) await ctx.jobs.enqueue(checkYtdlpJob, {}, { jobId: 'tools.checkYtdlp.start' })
  if (ctx.env.SCHEDULER && (await canaryDue(ctx))) await ctx.jobs.enqueue(canaryJob, { trigger: 'start' }, { jobId: 'tools.canary.start' })
}

export const toolJobs: JobModule = {
  definitions: [checkYtdlpJob, canaryJob],
  schedules: [
    { id: 'tools.checkYtdlp.daily', job: checkYtdlpJob, payload: {}, pattern: '41 4 * * *' },
    { id: 'tools.canary.daily', job: canaryJob, payload: { trigger: 'schedule' }, pattern: '17 5 * * *' },
  ],
  onStart: checkAtStart,
}
