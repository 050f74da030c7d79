import { Hono, type Context } from 'hono'
import { routePath } from 'hono/route'
import type { AppContext, AppEnv } from './context.ts'
import { embedded } from './embedded.ts'
import { errorFields, log } from './lib/logger.ts'
import { gauge, metrics } from './lib/metrics-registry.ts'
import { quotaStatus } from './youtube/quota.ts'

/**
 * Records one answered request (call after `next()` with the `performance.now()`
 * taken before it), labelled by the matched route pattern
 * (`/api/music/jobs/:id/download`, not the id: bounded label values).
 */
export function recordRequest(c: Context, started: number) {
  // after next() the route index points at the last handler that ran: the one that answered
  // (static files and the SPA fallback answer as '*', unknown API paths as '/api/*')
  const route = routePath(c) || 'unmatched'
  const method = c.req.method
  const status = c.res.status
  // the label sets are few and fixed: a plain string key skips building and sorting labels per request
  const k = `${method} ${route}`
  metrics.httpRequests.inc({ method, route, status: String(status) }, 1, `${k} ${status}`)
  metrics.httpDuration.observe({ method, route }, (performance.now() - started) / 1000, k)
}

const started = Date.now() / 1000

/**
 * GET /metrics in Prometheus text format: this process's requests, job runs,
 * WebSocket clients and resources, plus queue-wide job counts and today's
 * YouTube quota (the same on every process: shared queue and database).
 * Meant for a scraper on the private network: deploy/tunefeed.caddy hides it
 * from the internet.
 */
export function metricsRoutes(ctx: AppContext) {
  return new Hono<AppEnv>().get('/', async (c) => {
    const lines: string[] = []
    const memory = process.memoryUsage()
    const cpu = process.cpuUsage()
    lines.push(
      ...gauge('tunefeed_info', 'Build and configuration of this process (value 1).', [
        {
          labels: {
            version: embedded()?.version ?? 'source',
            database: ctx.env.DATABASE_URL ? 'postgres' : 'pglite',
            queue: ctx.env.QUEUE_URL ? 'server' : 'embedded',
          },
          value: 1,
        },
      ]),
      ...gauge('tunefeed_process_start_time_seconds', 'Start time of this process (Unix seconds).', [{ value: started }]),
      ...gauge('tunefeed_process_cpu_seconds_total', 'CPU time used by this process (user + system).', [{ value: (cpu.user + cpu.system) / 1e6 }]),
      ...gauge('tunefeed_process_resident_memory_bytes', 'Resident memory of this process.', [{ value: memory.rss }]),
      ...gauge('tunefeed_websocket_clients', 'Open WebSockets on this process (music jobs and channel listen sockets).', [{ value: ctx.hub.socketCount() }]),
      ...metrics.httpRequests.render(),
      ...metrics.httpDuration.render(),
      ...metrics.jobsFinished.render(),
      ...metrics.jobDuration.render(),
    )
    try {
      const counts = await ctx.jobs.counts()
      lines.push(
        ...gauge(
          'tunefeed_jobs',
          'Jobs in the queue by state (queue-wide; finished jobs are removed, see tunefeed_jobs_finished_total).',
          Object.entries(counts).map(([state, value]) => ({ labels: { state }, value })),
        ),
      )
    } catch (err) {
      log.warn('metrics: queue counts failed', errorFields(err))
    }
    try {
      const quota = await quotaStatus(ctx.db, ctx.env.YOUTUBE_DAILY_QUOTA)
      lines.push(
        ...gauge('tunefeed_youtube_quota_units_used', 'YouTube Data API units spent today (Pacific day, all processes).', [{ labels: { day: quota.day }, value: quota.units }]),
        ...gauge('tunefeed_youtube_quota_units_limit', 'YOUTUBE_DAILY_QUOTA.', [{ value: quota.budget }]),
        ...gauge('tunefeed_youtube_quota_exhausted', '1 when today\'s quota is marked exhausted.', [{ value: quota.exhausted ? 1 : 0 }]),
      )
    } catch (err) {
      log.warn('metrics: quota status failed', errorFields(err))
    }
    return c.text(`${lines.join('\n')}\n`, 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' })
  })
}
