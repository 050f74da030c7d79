import { z } from 'zod'
import type { JobDefinition, JobModule } from '../../jobs/types.ts'
import { syncWebsub } from './sync.ts'

const noPayload = z.object({}).strict()

/** Subscribe, renew, unsubscribe at the hub (src/youtube/websub/sync.ts). */
export const syncWebsubJob: JobDefinition<z.infer<typeof noPayload>> = {
  name: 'youtube.syncWebsub',
  payload: noPayload,
  async run(ctx) {
    await syncWebsub(ctx)
  },
}

/** Every minute: a channel nobody follows is unsubscribed within a minute (decision 255). */
export const websubJobs: JobModule = {
  definitions: [syncWebsubJob],
  schedules: [{ id: 'youtube.syncWebsub.minutely', job: syncWebsubJob, payload: {}, everyMs: 60_000 }],
}
