import { z } from 'zod'
import type { JobDefinition, JobModule } from '../../jobs/types.ts'
import { fetchAudioJob } from './audio.ts'
import { episodeJob } from './episodes.ts'
import { fetchAllEpisodes } from './podcasts.ts'

/** New uploads of podcast channels become episodes (after the hourly channel refresh at :07). */
const emptyPayload = z.object({})
export const podcastEpisodesJob: JobDefinition<z.infer<typeof emptyPayload>> = {
  name: 'youtube.podcastEpisodes',
  payload: emptyPayload,
  run: (ctx) => fetchAllEpisodes(ctx),
}

/** Listening's jobs, listed in src/jobs/registry.ts. */
export const listenJobs: JobModule = {
  definitions: [fetchAudioJob, episodeJob, podcastEpisodesJob],
  schedules: [{ id: 'youtube.podcastEpisodes.hourly', job: podcastEpisodesJob, payload: {}, pattern: '22 * * * *' }],
}
