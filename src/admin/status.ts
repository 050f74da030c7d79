import { sql } from 'drizzle-orm'
import type { AppContext } from '../context.ts'
import type { Db } from '../db/client.ts'
import { rowsOf } from '../db/rows.ts'
import { embedded } from '../embedded.ts'
import { diskSpace } from '../lib/faults.ts'
import pkg from '../../package.json' with { type: 'json' }
import { countFailures, listScheduleRuns } from '../jobs/history.ts'
import { canaryStatus } from '../tools/canary.ts'
import { cookiesStatus } from '../tools/cookies.ts'
import { quotaStatus } from '../youtube/quota.ts'
import { untrustedForwarded } from '../lib/proxy-notice.ts'
import { keepDiskStatus } from '../youtube/keep/status.ts'
import { mediaServersStatus } from '../youtube/keep/media-servers.ts'
import { websubStatus } from '../youtube/websub/status.ts'
import type { AdminMail, AdminSchedule } from './schema.ts'
import { youtubeState, ytdlpFacts } from './youtube-state.ts'

/** Every recurring job with its last run and next run (GET /api/admin/schedules and the status). */
export async function adminSchedules(ctx: AppContext): Promise<AdminSchedule[]> {
  // loaded lazily: the registry pulls in every feature's jobs
  const [{ jobModules }, runs, next, registered] = await Promise.all([
    import('../jobs/registry.ts'),
    listScheduleRuns(ctx.db),
    ctx.jobs.nextRuns(),
    ctx.jobs.schedules(),
  ])
  const active = new Set(registered)
  const byId = new Map(runs.map((r) => [r.id, r]))
  return jobModules
    .flatMap((m) => m.schedules ?? [])
    .map((s) => {
      const run = byId.get(s.id)
      return {
        name: s.id,
        every: s.pattern ?? `${s.everyMs} ms`,
        lastRunAt: run?.lastRunAt.toISOString() ?? null,
        lastOutcome: run?.lastOutcome ?? null,
        lastError: run?.lastError ?? null,
        nextRunAt: next[s.id]?.toISOString() ?? null,
        active: active.has(s.id),
      }
    })
}

/** Queue counts; `failed` counts the given-up jobs the admin has not retried or deleted. */
export async function queueCounts(ctx: AppContext) {
  const [counts, failed] = await Promise.all([ctx.jobs.counts(), countFailures(ctx.db)])
  return {
    waiting: (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0),
    active: counts.active ?? 0,
    failed,
    completed: counts.completed ?? 0,
  }
}

/** Which database answers, as it says itself: `PostgreSQL 18.6 (PGlite 0.5.16) on wasm32…` or `PostgreSQL 15.x on …`. */
export async function databaseInfo(db: Db) {
  const [row] = rowsOf<{ version: string }>(await db.execute(sql`select version() as version`))
  const text = row?.version ?? ''
  return { kind: /PGlite/.test(text) ? ('pglite' as const) : ('postgres' as const), version: /^PostgreSQL [\d.]+/.exec(text)?.[0] ?? text }
}

/**
 * GET /api/admin/status (docs/api.md, Admin): version, database, the tools
 * and cookies (never their values), queue, today's YouTube quota and the
 * recurring jobs.
 */
export async function adminStatus(ctx: AppContext) {
  const { env, db } = ctx
  const [database, cookies, queue, quota, schedules, canary, pace, disk, keep, websub] = await Promise.all([
    databaseInfo(db),
    cookiesStatus(db),
    queueCounts(ctx),
    quotaStatus(db, env.YOUTUBE_DAILY_QUOTA),
    adminSchedules(ctx),
    canaryStatus(ctx),
    ctx.tools.pace.status(),
    diskSpace(env.DATA_DIR, env.DISK_FREE_WARN_MB),
    keepDiskStatus(ctx),
    websubStatus(ctx),
    // the PO-token provider's /ping, asked again unless a few seconds old
    ctx.tools.pot.refresh(),
    // the store, checked again when the last check is a minute old (the status never waits past its bound)
    ctx.storage.fresh(60_000),
  ])
  const tools = ctx.tools.status()
  return {
    version: embedded()?.version ?? pkg.version,
    database,
    tools: { ...tools, ytDlp: { ...tools.ytDlp, ...ytdlpFacts(ctx) }, canary },
    cookies,
    queue,
    youtube: {
      apiKey: !!env.YOUTUBE_API_KEY,
      mode: env.YOUTUBE_API_KEY ? ('api' as const) : ('feed' as const),
      quota: {
        day: quota.day,
        units: quota.units,
        budget: quota.budget,
        exhausted: quota.exhausted,
        cause: quota.cause,
        resetsAt: quota.resetsAt,
      },
      pace,
      // downloads, from the tools, the pause and the canary (the quota above is the Data API's)
      // pushes of new uploads from the WebSub hub (src/youtube/websub/)
      websub,
      downloads: youtubeState({ ytdlpVersion: tools.ytDlp.version, jsSupported: tools.jsRuntime.supported, pausedUntil: pace.pausedUntil, canary }),
    },
    schedules,
    // keeping videos: the disk holding KEEP_DIR and why fetches wait; the media servers told
    disk: { ...disk, keep },
    mediaServers: mediaServersStatus(ctx),
    // requests with X-Forwarded-For while TRUST_PROXY is off (src/lib/proxy-notice.ts)
    proxy: { trusted: env.TRUST_PROXY, untrustedForwarded: untrustedForwarded(env) },
    // kind, endpoint, bucket, ok, checkedAt, lastError: never a key
    storage: ctx.storage.status(),
  }
}

/** The mail settings in use, without the SMTP password. */
export function adminMail(ctx: Pick<AppContext, 'env'>): AdminMail {
  const { SMTP_URL, MAIL_FROM, DATA_DIR } = ctx.env
  if (!SMTP_URL) return { transport: 'files', host: null, port: null, secure: false, username: null, from: MAIL_FROM, folder: `${DATA_DIR}/mail` }
  const url = new URL(SMTP_URL)
  const secure = url.protocol === 'smtps:'
  return {
    transport: 'smtp',
    host: url.hostname,
    port: Number(url.port || (secure ? 465 : 587)),
    secure,
    username: url.username ? decodeURIComponent(url.username) : null,
    from: MAIL_FROM,
    folder: null,
  }
}

export const testMail = (to: string) => ({
  to,
  subject: 'Tunefeed test mail',
  text: 'This is a test mail from your Tunefeed server: its mail settings work.',
})
