import { z } from 'zod'
import type { AppContext } from '../context.ts'
import type { JobDefinition, JobModule } from '../jobs/types.ts'

/** `tools.checkYtdlp`: one check of the managed yt-dlp's channel (src/tools/managed.ts). */
export const checkYtdlpJob: JobDefinition<Record<string, never>> = {
  name: 'tools.checkYtdlp',
  payload: z.object({}).strict() as z.ZodType<Record<string, never>>,
  // a failed check is recorded in the managed state and tried again at the next one
  attempts: 1,
  timeoutMs: 15 * 60 * 1000,
  run: async (ctx) => void (await ctx.tools.managed.update()),
}

/** At start-up, a check of the managed yt-dlp (the daily schedule does the rest). */
async function checkAtStart(ctx: AppContext) {
  if (ctx.tools.managed.enabled) await ctx.jobs.enqueue(checkYtdlpJob, {}, { jobId: 'tools.checkYtdlp.start' })
}

export const toolJobs: JobModule = {
  definitions: [checkYtdlpJob],
  schedules: [{ id: 'tools.checkYtdlp.daily', job: checkYtdlpJob, payload: {}, pattern: '41 4 * * *' }],
  onStart: checkAtStart,
}
