import type { AppContext } from '../context.ts'
import { embedded } from '../embedded.ts'
import pkg from '../../package.json' with { type: 'json' }
import { cookiesStatus } from '../tools/cookies.ts'
import { quotaStatus } from '../youtube/quota.ts'

/**
 * GET /api/admin/status (docs/api.md, Admin): versions and sources of the
 * tools, the cookies (never their values), queue counts, today's YouTube
 * quota and the recurring jobs.
 */
export async function adminStatus(ctx: AppContext) {
  const { env, db } = ctx
  const [{ jobModules }, cookies, counts, quota] = await Promise.all([
    // loaded lazily: the registry pulls in every feature's jobs
    import('../jobs/registry.ts'),
    cookiesStatus(db),
    ctx.jobs.counts(),
    quotaStatus(db, env.YOUTUBE_DAILY_QUOTA),
  ])
  const active = new Set(await ctx.jobs.schedules())
  return {
    version: embedded()?.version ?? pkg.version,
    tools: ctx.tools.status(),
    cookies,
    queue: {
      waiting: (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0),
      active: counts.active ?? 0,
      failed: counts.failed ?? 0,
      completed: counts.completed ?? 0,
    },
    youtube: {
      apiKey: !!env.YOUTUBE_API_KEY,
      mode: env.YOUTUBE_API_KEY ? 'api' : 'feed',
      quota: {
        day: quota.day,
        units: quota.units,
        budget: quota.budget,
        exhausted: quota.exhausted,
        cause: quota.cause,
        resetsAt: quota.resetsAt,
      },
    },
    schedules: jobModules
      .flatMap((m) => m.schedules ?? [])
      .map((s) => ({
        name: s.id,
        every: s.pattern ?? `${s.everyMs} ms`,
        // run history per schedule is recorded by the admin page's issue; null until then
        lastRunAt: null,
        lastOutcome: null,
        nextRunAt: null,
        active: active.has(s.id),
      })),
  }
}
