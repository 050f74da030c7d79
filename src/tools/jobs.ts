import { z } from 'zod'
import type { AppContext } from '../context.ts'
import type { JobDefinition, JobModule } from '../jobs/types.ts'
import { CANARY_RETRIES, canaryDue, runCanary } from './canary.ts'

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
export const canaryJob: JobDefinition<{ trigger: 'schedule' | 'start' | 'admin' | 'update'; retry?: number }> = {
  name: 'tools.canary',
  // `retry`: how many times an update's canary was tried again after a failure of the moment
  payload: z.object({ trigger: z.enum(['schedule', 'start', 'admin', 'update']), retry: z.number().int().min(1).max(CANARY_RETRIES).optional() }).strict(),
  // the result is recorded either way; the next day's (or the admin's) run tries again
  attempts: 1,
  // YouTube's pacing may make it wait its turn (src/tools/toolbox.ts withYtdlp)
  timeoutMs: 30 * 60 * 1000,
  run: async (ctx, { trigger, retry = 0 }) => {
    const result = await runCanary(ctx, trigger)
    // an update's canary met a bot check, the network or a timeout: the same check again after the pause
    if (result.retryInMs !== null && retry < CANARY_RETRIES) {
      // one retry per build and try: a retry still waiting for an earlier build (10 min after a
      // timeout) must not swallow this one's
      const build = ctx.tools.status().ytDlp.version ?? 'none'
      await ctx.jobs.enqueue(canaryJob, { trigger, retry: retry + 1 }, { delayMs: result.retryInMs, jobId: `tools.canary.retry-${build}-${retry + 1}` })
    }
  },
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
