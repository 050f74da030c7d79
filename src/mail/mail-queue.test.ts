import { afterEach, describe, expect, test } from 'bun:test'
import { Client, createTestApp, signUp, type TestApp } from '../../tests/support/app.ts'
import { closedPort, resetCode, startSilentServer, startSmtp, verifyLink, type TestSmtp } from '../../tests/support/smtp.ts'
import { until } from '../../tests/support/wait.ts'
import { quickUser } from '../../tests/support/youtube.ts'
import type { FailedMail, OutboxMail } from './jobs.ts'

// Issue 29, 1 and 2: a mail waits for SMTP in the durable queue instead of being lost,
// and the request that asked for it answers at once, the same for every address.

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const newEmail = () => `mail-${crypto.randomUUID().slice(0, 8)}@example.com`

async function appMailingTo(port: number, env: Record<string, string> = {}) {
  const t = await createTestApp({ smtpUrl: `smtp://127.0.0.1:${port}?ignoreTLS=1`, env })
  cleanups.push(() => t.close())
  return t
}

async function smtpOn(port: number) {
  const smtp = await startSmtp({ port })
  cleanups.push(() => smtp.stop())
  return smtp
}

/** How long a request takes, in ms. */
async function timed(run: () => Promise<Response>): Promise<{ ms: number; res: Response }> {
  const started = performance.now()
  const res = await run()
  return { ms: performance.now() - started, res }
}

const attemptsTo = (t: TestApp, email: string) => t.outbox.filter((m) => m.to === email).length

describe('SMTP refuses connections', () => {
  test('sign-up answers 204 at once; the mail waits and arrives once SMTP is back, and its link works', async () => {
    const port = await closedPort()
    const t = await appMailingTo(port)
    const email = newEmail()
    const client = new Client(t)
    const { ms, res } = await timed(() => client.post('/api/auth/create', { email, password: 'correct horse' }))
    expect(res.status).toBe(204)
    expect(ms).toBeLessThan(2000)
    // the mail job tried (and SMTP refused): nothing delivered, the mail is kept
    await until('a first attempt', () => attemptsTo(t, email) >= 1, 20_000, 20)
    const smtp: TestSmtp = await smtpOn(port)
    const back = performance.now()
    const mail = await smtp.nextMail(email, { timeoutMs: 30_000 })
    console.log(`mail delivered ${Math.round(performance.now() - back)} ms after SMTP came back`)
    const verified = await client.request(`/api/auth/verify?token=${verifyLink(mail).split('/verify/')[1]}`)
    expect(verified.status).toBe(204)
  }, 60_000)

  test('a reset waits too; while it waits, and once given up, the admin sees it on the Mail tab', async () => {
    const port = await closedPort()
    // give up after ~4 s instead of a day
    const t = await appMailingTo(port, { MAIL_RETRY_HOURS: '0.001' })
    const admin = await quickUser(t, { admin: true })
    const user = await quickUser(t)
    expect((await new Client(t).post('/api/auth/sendreset', { email: user.email })).status).toBe(204)
    const outbox = async () =>
      (await (await admin.client.get('/api/admin/mail')).json()).outbox as { waiting: OutboxMail[]; failed: FailedMail[] }
    const waiting = await until('the mail waiting with its error', async () => (await outbox()).waiting.find((m) => m.to === user.email && m.lastError), 20_000)
    expect(waiting).toMatchObject({ subject: 'Your Tunefeed password reset code' })
    expect(waiting.attempts).toBeGreaterThanOrEqual(1)
    expect(waiting.lastError).toContain('ECONNREFUSED')
    const failed = await until('the mail given up', async () => (await outbox()).failed.find((m) => m.to === user.email), 30_000)
    expect(failed.error).toMatch(/^Mail could not be sent: /)
    expect(JSON.stringify(await outbox())).not.toMatch(/reset code is/i)
    // SMTP back: the admin retries it from the Jobs routes and the code arrives and works
    const smtp = await smtpOn(port)
    expect((await admin.client.post(`/api/admin/jobs/${failed.id}/retry`)).status).toBe(200)
    const mail = await smtp.nextMail(user.email, { timeoutMs: 30_000 })
    const reset = await new Client(t).post('/api/auth/reset', { token: resetCode(mail), password: 'a brand new password' })
    expect(reset.status).toBe(204)
    expect((await outbox()).failed.find((m) => m.to === user.email)).toBeUndefined()
  }, 90_000)
})

describe('SMTP accepts and never answers', () => {
  test('sign-up and reset answer at once, the same for known and unknown addresses; the mail arrives once the server behaves', async () => {
    const silent = await startSilentServer()
    cleanups.push(() => silent.stop())
    const t = await appMailingTo(silent.port)
    // one reset per account (a second one would replace the first mail's code)
    const known = [await signUpWithoutMail(t), await signUpWithoutMail(t), await signUpWithoutMail(t)]
    const unknown = newEmail()
    const times: Record<string, number[]> = { known: [], unknown: [], signup: [] }
    for (let i = 0; i < 3; i++) {
      const k = await timed(() => new Client(t).post('/api/auth/sendreset', { email: known[i] }))
      const u = await timed(() => new Client(t).post('/api/auth/sendreset', { email: unknown }))
      const s = await timed(() => new Client(t).post('/api/auth/create', { email: newEmail(), password: 'correct horse' }))
      expect([k.res.status, u.res.status, s.res.status]).toEqual([204, 204, 204])
      times.known!.push(k.ms)
      times.unknown!.push(u.ms)
      times.signup!.push(s.ms)
    }
    console.log('answer times (ms) with a silent SMTP server:', JSON.stringify(times, (_k, v) => (typeof v === 'number' ? Math.round(v) : v)))
    for (const ms of [...times.known!, ...times.unknown!, ...times.signup!]) expect(ms).toBeLessThan(2000)
    // the mail job is stuck on the silent server meanwhile
    await until('the mail job to connect', () => silent.connections >= 1, 20_000, 20)
    await silent.stop()
    const smtp = await smtpOn(silent.port)
    for (const email of known) {
      const mail = await smtp.nextMail(email, { timeoutMs: 60_000 })
      const reset = await new Client(t).post('/api/auth/reset', { token: resetCode(mail), password: 'a brand new password' })
      expect(reset.status).toBe(204)
    }
    expect(smtp.mailsTo(unknown)).toHaveLength(0)
  }, 120_000)
})

describe('without SMTP_URL (.eml files under DATA_DIR/mail)', () => {
  test('the same queue: sign-up answers 204 and the file appears', async () => {
    const t = await createTestApp()
    cleanups.push(() => t.close())
    const { email } = await signUp(t)
    const { readdirSync } = await import('node:fs')
    const files = await until('the .eml file', () => {
      const list = readdirSync(`${t.ctx.env.DATA_DIR}/mail`).filter((f) => f.endsWith('.eml'))
      return list.length ? list : null
    })
    expect(files.length).toBeGreaterThanOrEqual(1)
    expect(email).toContain('@')
  })
})

/** A verified account made directly (its verification mail would wait on the silent server). */
async function signUpWithoutMail(t: TestApp) {
  return (await quickUser(t)).email
}

describe('a restart', () => {
  test('a mail waiting for SMTP is kept across a restart of the app and sent by the next process', async () => {
    const { createContext } = await import('../compose.ts')
    const { parseEnv } = await import('../env.ts')
    const { createTestDatabase } = await import('../../tests/support/db.ts')
    const { testQueuePath } = await import('../../tests/support/app.ts')
    const { mkdtempSync, rmSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const port = await closedPort()
    const dataDir = mkdtempSync(join(tmpdir(), 'tunefeed-mail-restart-'))
    const database = await createTestDatabase()
    const queue = { dataPath: testQueuePath(), queueName: `restart-${crypto.randomUUID()}` }
    const env = parseEnv({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      APP_SECRET: 'test-secret-test-secret-test-secret-0123',
      SCHEDULER: 'false',
      YTDLP_UPDATE: 'off',
      PATH: process.env.PATH ?? '',
      SMTP_URL: `smtp://127.0.0.1:${port}?ignoreTLS=1`,
    })
    const to = newEmail()
    try {
      // the first process: SMTP refuses, the mail waits in the queue; then the process stops
      const first = createContext(env, { database, queue })
      await first.start()
      const { createUser } = await import('../auth/queries.ts')
      await createUser(first.ctx.db, to, 'correct horse')
      const { queueMail } = await import('./jobs.ts')
      await queueMail(first.ctx, 'verify', to, 'http://127.0.0.1')
      await until('the mail waiting with its error', async () => {
        const pending = (await first.ctx.jobs.pending?.('mail.send')) ?? []
        return pending.some((p) => (p.data as { lastError?: string }).lastError)
      }, 20_000, 50)
      await first.stop()
      // SMTP comes back while no process runs; the next process sends the mail
      const smtp = await smtpOn(port)
      const second = createContext(env, { database, queue })
      await second.start()
      try {
        const mail = await smtp.nextMail(to, { timeoutMs: 60_000 })
        expect(verifyLink(mail)).toContain('http://127.0.0.1/verify/')
      } finally {
        await second.stop()
      }
    } finally {
      await database.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)
})
