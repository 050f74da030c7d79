import { sql } from 'drizzle-orm'
import { startFakeYoutube, type FakeYoutube, type FakeYoutubeOptions } from '../../scripts/fake-youtube.ts'
import type { AppContext } from '../../src/context.ts'
import { users } from '../../src/auth/tables.ts'
import { youtubeQuotaDays } from '../../src/youtube/tables.ts'
import type { EnqueueOptions, JobDefinition, JobState, Jobs } from '../../src/jobs/types.ts'
import { createSession, SESSION_COOKIE } from '../../src/auth/session.ts'
import { Client, createTestApp, signUp, type TestApp } from './app.ts'
import { eq } from 'drizzle-orm'

interface Pending {
  id: string
  def: JobDefinition<any>
  payload: unknown
  delayMs: number
}

/**
 * A `Jobs` that runs handlers in this process when the test says so
 * (`drain()`), so a test can assert exactly what was queued and what each
 * run spent. Payloads are validated at enqueue and at run like the real
 * queue; a job id already waiting is not added twice. Delayed jobs are kept
 * aside (`delayed`) and not run by `drain()`.
 */
export class InlineJobs implements Jobs {
  ctx!: AppContext
  waiting: Pending[] = []
  delayed: Pending[] = []
  /** Names of the jobs run so far, in order. */
  ran: string[] = []
  private seq = 0

  async enqueue<P>(def: JobDefinition<P>, payload: P, opts: EnqueueOptions = {}): Promise<string> {
    const data = def.payload.parse(payload)
    const list = opts.delayMs ? this.delayed : this.waiting
    if (opts.jobId) {
      const existing = [...this.waiting, ...this.delayed].find((p) => p.id === opts.jobId)
      if (existing) return existing.id
    }
    const id = opts.jobId ?? `job-${++this.seq}`
    list.push({ id, def, payload: data, delayMs: opts.delayMs ?? 0 })
    return id
  }

  /** Runs waiting jobs (and those they queue) until none is left. */
  async drain(): Promise<void> {
    while (this.waiting.length) {
      const job = this.waiting.shift()!
      const payload = job.def.payload.parse(job.payload)
      this.ran.push(job.def.name)
      await job.def.run(this.ctx, payload, {
        id: job.id,
        attempt: 1,
        attempts: 1,
        signal: new AbortController().signal,
        progress: async () => {},
      })
    }
  }

  async counts() {
    return { waiting: this.waiting.length, delayed: this.delayed.length }
  }
  async state(jobId: string): Promise<JobState> {
    if (this.waiting.some((p) => p.id === jobId)) return 'waiting'
    if (this.delayed.some((p) => p.id === jobId)) return 'delayed'
    return 'unknown'
  }
  async cancel(jobId: string) {
    this.waiting = this.waiting.filter((p) => p.id !== jobId)
    this.delayed = this.delayed.filter((p) => p.id !== jobId)
  }
  async schedules() {
    return []
  }

  async nextRuns() {
    return {}
  }
}

export interface YoutubeTestApp extends TestApp {
  jobs: InlineJobs
  fake: FakeYoutube
}

/** A fresh app and database wired to `fake` (one fake per test file is enough: its data only grows). */
export async function createYoutubeTestApp(fake: FakeYoutube, env: Record<string, string> = {}): Promise<YoutubeTestApp> {
  const jobs = new InlineJobs()
  const t = await createTestApp({
    env: { ...fake.env, YOUTUBE_RETRY_BASE_MS: '1', ...env },
    ctx: { jobs },
  })
  jobs.ctx = t.ctx
  return { ...t, jobs, fake }
}

/**
 * A fake YouTube and a test app on it; closing the app stops the fake too. In a
 * test file: `beforeAll(async () => ({ fake } = t = await startYoutubeTestApp()), 60_000)`.
 */
export async function startYoutubeTestApp(env: Record<string, string> = {}): Promise<YoutubeTestApp> {
  const fake = await startTestFake()
  const t = await createYoutubeTestApp(fake, env)
  return {
    ...t,
    async close() {
      await t.close()
      await fake.stop()
    },
  }
}

export function startTestFake(opts: FakeYoutubeOptions = {}): Promise<FakeYoutube> {
  // a fixed anchor keeps generated dates identical from run to run
  return startFakeYoutube({ media: false, now: new Date('2026-01-15T12:00:00Z'), ...opts })
}

/**
 * A verified account with a session, straight in the database (sign-up's
 * password hashing costs a third of a second; these tests are not about it).
 * The account has no usable password.
 */
export async function quickUser(t: TestApp, opts: { admin?: boolean } = {}) {
  const email = `user-${crypto.randomUUID().slice(0, 8)}@example.com`
  const [user] = await t.ctx.db
    .insert(users)
    .values({ email, passwordHash: '!', admin: opts.admin ?? false, verifiedAt: new Date() })
    .returning({ id: users.id })
  const { token } = await createSession(t.ctx.db, user!.id)
  const client = new Client(t)
  client.cookie = `${SESSION_COOKIE}=${token}`
  return { client, email, id: user!.id }
}

/** Signs up (the whole mail flow) and gives the account the admin flag. */
export async function signUpAdmin(t: TestApp) {
  const user = await signUp(t)
  await t.ctx.db.update(users).set({ admin: true }).where(eq(users.email, user.email))
  return user
}

/** Units recorded in today's ledger line. */
export async function ledgerUnits(t: TestApp): Promise<number> {
  const rows = await t.ctx.db.execute(sql`select coalesce(sum(units), 0)::int as units from youtube_quota_days`)
  const list = Array.isArray(rows) ? rows : (rows as { rows: { units: number }[] }).rows
  return Number((list[0] as { units: number }).units)
}

/** Between tests sharing an app: the fake back to normal, and today's quota no longer marked exhausted. */
export async function resetYoutube(t: YoutubeTestApp) {
  t.fake.reset()
  await t.ctx.db.update(youtubeQuotaDays).set({ exhaustedAt: null, cause: null })
}
