import { musicJobs } from '../music/jobs.ts'
import { youtubeJobs } from '../youtube/jobs.ts'
import { listenJobs } from '../youtube/listen/jobs.ts'
import { keepJobs } from '../youtube/keep/jobs.ts'
import { notificationJobs } from '../notifications/jobs.ts'
import { toolJobs } from '../tools/jobs.ts'
import { mailJobs } from '../mail/jobs.ts'
import { websubJobs } from '../youtube/websub/jobs.ts'
import type { JobModule } from './types.ts'

/**
 * The one file of the lower floors that imports features (biome.json exempts it, decision 300):
 * it is wiring, and belongs beside src/compose.ts once the comments that cite this path move.
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
