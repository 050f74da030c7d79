import { join } from 'node:path'
import type { AppContext } from '../context.ts'
import { BunqueueJobs, type QueueConfig } from './queue.ts'
import type { JobModule } from './types.ts'

/**
 * Builds the queue from the features' job modules (for createContext in src/compose.ts, which
 * passes src/jobs/registry.ts).
 * Call `start(ctx)` once the database is open (the worker may run jobs at
 * once), `stop()` on shutdown. The `queue` health check is added here.
 */
export function createJobs(
  ctx: Pick<AppContext, 'env' | 'health'>,
  overrides: Partial<QueueConfig> & { modules: JobModule[] },
): BunqueueJobs {
  const { env } = ctx
  const { modules, ...config } = overrides
  const jobs = new BunqueueJobs(modules, {
    dataPath: join(env.DATA_DIR, 'queue', 'jobs.db'),
    connection: env.QUEUE_URL ? queueConnection(env.QUEUE_URL) : undefined,
    concurrency: env.JOB_CONCURRENCY,
    defaultTimeoutMs: env.JOB_TIMEOUT_SECONDS * 1000,
    scheduler: env.SCHEDULER,
    ...config,
  })
  ctx.health.queue = () => jobs.check()
  return jobs
}

/** QUEUE_URL (bunqueue://[token@]host:port, checked by env.ts) as bunqueue client connection options. */
export function queueConnection(queueUrl: string): { host: string; port: number; token?: string } {
  const url = new URL(queueUrl.replace(/^bunqueue:/, 'http:'))
  const token = decodeURIComponent(url.username || url.password)
  return { host: url.hostname, port: Number(url.port), ...(token ? { token } : {}) }
}
