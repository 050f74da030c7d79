import { musicJobs } from './music/jobs.ts'
import { youtubeJobs } from './youtube/jobs.ts'
import { listenJobs } from './youtube/listen/jobs.ts'
import { keepJobs } from './youtube/keep/jobs.ts'
import { notificationJobs } from './notifications/jobs.ts'
import { toolJobs } from './tools/jobs.ts'
import { mailJobs } from './mail/jobs.ts'
import { websubJobs } from './youtube/websub/jobs.ts'
import type { JobModule } from './jobs/types.ts'

/**
 * Every feature's jobs and schedules, registered with the queue at start-up.
 * A feature adds itself with one line here (its `jobs.ts` exports a JobModule).
 */
export const jobModules: JobModule[] = [
  musicJobs,
  youtubeJobs,
  listenJobs,
  keepJobs,
  notificationJobs,
  toolJobs,
  mailJobs,
  websubJobs,
]
