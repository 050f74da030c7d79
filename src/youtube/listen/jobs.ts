import { z } from 'zod'
import type { AppContext } from '../../context.ts'
import type { JobDefinition, JobModule } from '../../jobs/types.ts'
import { fetchAudioJob } from './audio.ts'
import { episodeJob } from './episodes.ts'
import { fetchAllEpisodes, fetchUserEpisodes } from './podcasts.ts'

/** New uploads of podcast channels become episodes (after the hourly channel refresh at :07). */
const emptyPayload = z.object({})
export const podcastEpisodesJob: JobDefinition<z.infer<typeof emptyPayload>> = {
  name: 'youtube.podcastEpisodes',
  payload: emptyPayload,
  run: (ctx) => fetchAllEpisodes(ctx),
}

/**
 * A person's episodes cut again after a change of their SponsorBlock settings, RECUT_DELAY_MS
 * after the first change: the changes that follow within it are folded into the same re-cut
 * (one job id per person), so clicking through the categories costs one re-cut, not one each.
 */
export const RECUT_DELAY_MS = 30_000
export const recutEpisodesJob: JobDefinition<{ userId: string }> = {
  name: 'youtube.recutEpisodes',
  payload: z.object({ userId: z.string() }),
  run: (ctx, { userId }) => fetchUserEpisodes(ctx, userId),
}
export const queueRecut = (ctx: AppContext, userId: string) =>
  ctx.jobs.enqueue(recutEpisodesJob, { userId }, { jobId: `youtube.recutEpisodes.${userId}`, delayMs: RECUT_DELAY_MS })

/** Listening's jobs, listed in src/jobs/registry.ts. */
export const listenJobs: JobModule = {
  definitions: [fetchAudioJob, episodeJob, podcastEpisodesJob, recutEpisodesJob],
  schedules: [{ id: 'youtube.podcastEpisodes.hourly', job: podcastEpisodesJob, payload: {}, pattern: '22 * * * *' }],
}
