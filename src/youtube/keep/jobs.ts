import { inArray } from 'drizzle-orm'
import { z } from 'zod'
import type { AppContext } from '../../context.ts'
import type { JobDefinition, JobModule } from '../../jobs/types.ts'
import { jobIdOf, keepFetchJob } from './fetch.ts'
import { applyAllRules } from './rules.ts'
import { youtubeKeptFiles } from './tables.ts'

/** Every rule again: new uploads, watched videos whose days have passed, files no keeper wants. */
const emptyPayload = z.object({})
export const keepRulesJob: JobDefinition<z.infer<typeof emptyPayload>> = {
  name: 'youtube.keepRules',
  payload: emptyPayload,
  run: (ctx) => applyAllRules(ctx),
}

/** Fetches the queue lost (a crash between the row and the job): queued again, deduplicated by id. */
async function resumeFetches(ctx: AppContext) {
  const rows = await ctx.db.select({ videoId: youtubeKeptFiles.videoId }).from(youtubeKeptFiles).where(inArray(youtubeKeptFiles.state, ['queued', 'fetching']))
  for (const r of rows) await ctx.jobs.enqueue(keepFetchJob, { videoId: r.videoId }, { jobId: jobIdOf(r.videoId) })
}

/** Keeping's jobs, listed in src/jobs/registry.ts. */
export const keepJobs: JobModule = {
  definitions: [keepFetchJob, keepRulesJob],
  onStart: resumeFetches,
  schedules: [{ id: 'youtube.keepRules.hourly', job: keepRulesJob, payload: {}, pattern: '37 * * * *' }],
}
