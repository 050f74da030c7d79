import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { Client, createTestApp, signUp, type TestApp } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { until } from '../../tests/support/wait.ts'
import { createSmtpTestApp, type TestSmtp } from '../../tests/support/smtp.ts'
import { quickUser } from '../../tests/support/youtube.ts'
import { LAST_SEEN_EVERY } from '../auth/session.ts'
import { sessionCache } from '../auth/session-cache.ts'
import { users } from '../auth/tables.ts'
import { musicRun } from '../music/jobs.ts'
import { musicJobs } from '../music/tables.ts'
import type { AdminFailedJob, AdminUser } from './schema.ts'

// A real app with the real queue (bunqueue) and a real SMTP server on 127.0.0.1.
let t: TestApp
let smtp: TestSmtp
let boss: Awaited<ReturnType<typeof quickUser>>
beforeAll(async () => {
  ;({ t, smtp } = await createSmtpTestApp())
  boss = await quickUser(t, { admin: true })
}, 60_000)
afterAll(() => t.close())


/** A music job that cannot run (neither a link nor an upload): the queue gives it up at once. */
async function brokenMusicJob(userId: string) {
  const [row] = await t.ctx.db.insert(musicJobs).values({ userId, title: 'Broken', artist: 'A', album: 'B' }).returning()
  mkdirSync(join(t.ctx.env.DATA_DIR, 'music', userId, row!.id), { recursive: true })
  await t.ctx.jobs.enqueue(musicRun, { jobId: row!.id }, { jobId: row!.id })
  return row!.id
}

const failedJobs = async (): Promise<AdminFailedJob[]> => (await (await boss.client.get('/api/admin/jobs')).json()).failed

describe('admin routes: who may call them', () => {
  test('401 for anonymous, 403 for non-admins, on every route and method', async () => {
    const anon = new Client(t)
    const user = await quickUser(t)
    const id = crypto.randomUUID()
    const calls: [string, string][] = [
      ['GET', '/api/admin/status'],
      ['GET', '/api/admin/users?page=x'],
      ['PATCH', `/api/admin/users/${id}`],
      ['DELETE', `/api/admin/users/${id}`],
      ['GET', '/api/admin/jobs'],
      ['POST', `/api/admin/jobs/${id}/retry`],
      ['DELETE', `/api/admin/jobs/${id}`],
      ['GET', '/api/admin/schedules'],
      ['POST', '/api/admin/schedules/music.cleanup.daily/run'],
      ['GET', '/api/admin/mail'],
      ['POST', '/api/admin/mail/test'],
      ['POST', '/api/admin/cron/run'],
    ]
    for (const [method, path] of calls) {
      await expectError(anon.request(path, { method, json: method === 'PATCH' ? { admin: true } : undefined }), 401, 'Unauthorized')
      await expectError(user.client.request(path, { method, json: method === 'PATCH' ? { admin: true } : undefined }), 403, 'Forbidden')
    }
    expect(smtp.messages).toHaveLength(0)
  })

  test("the spec's GET actions also take POST; a GET from another site is refused", async () => {
    const post = await boss.client.request('/api/admin/youtube/update_video_categories', { method: 'POST' })
    expect(post.status).toBe(200)
    expect((await post.json()).jobIds).toHaveLength(1)
    for (const site of ['cross-site', 'same-site']) {
      for (const path of ['/api/admin/cron/run', '/api/admin/youtube/update_channel_videos', '/api/admin/status']) {
        await expectError(boss.client.request(path, { headers: { 'sec-fetch-site': site } }), 403, 'Cross-site request refused.')
      }
      // a POST from another site is refused by the app's origin check
      await expectError(boss.client.request('/api/admin/cron/run', { method: 'POST', headers: { 'sec-fetch-site': site } }), 403)
    }
    for (const site of ['same-origin', 'none']) {
      const res = await boss.client.request('/api/admin/youtube/update_video_categories', { headers: { 'sec-fetch-site': site } })
      expect(res.status).toBe(200)
    }
  })
})

describe('GET actions from browsers without Sec-Fetch-Site', () => {
  const actions = ['/api/admin/cron/run', '/api/admin/youtube/update_channel_videos', '/api/admin/youtube/update_subscriptions', '/api/admin/youtube/update_video_categories']
  const refused = 'Cross-site request refused: send this action as a POST, or from a page of this site.'

  test('refused without a same-origin Origin or Referer; a same-origin one, a POST or an API token is accepted', async () => {
    for (const path of actions) {
      // an older browser following a link or loading an image from another site: no header, or another site's
      await expectError(boss.client.request(path), 403, refused)
      await expectError(boss.client.request(path, { headers: { referer: 'http://evil.example/page' } }), 403, refused)
      await expectError(boss.client.request(path, { headers: { origin: 'http://evil.example' } }), 403, refused)
      await expectError(boss.client.request(path, { headers: { origin: 'null', referer: 'http://evil.example/' } }), 403, refused)
      await expectError(boss.client.request(path, { headers: { referer: 'http://localhost.evil.example/admin' } }), 403, refused)
    }
    const ok = async (init: RequestInit) => {
      const res = await boss.client.request('/api/admin/youtube/update_video_categories', init)
      expect(res.status).toBe(200)
    }
    // app.request() runs at http://localhost
    await ok({ headers: { referer: 'http://localhost/admin' } })
    await ok({ headers: { origin: 'http://localhost' } })
    await ok({ method: 'POST' })
    const token = (await (await boss.client.post('/api/auth/tokens', { name: 'cron' })).json()) as { token: string }
    await ok({ headers: { authorization: `Bearer ${token.token}` } })
    // reading routes are not actions: the admin page reads them as before
    expect((await boss.client.request('/api/admin/status')).status).toBe(200)
  })
})

describe('status, schedules, jobs, mail', () => {
  test('status: version, database, queue, YouTube mode and quota, schedules', async () => {
    const status = await (await boss.client.get('/api/admin/status')).json()
    expect(status).toMatchObject({
      version: expect.any(String),
      database: { kind: process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite', version: expect.stringMatching(/^PostgreSQL \d+/) },
      queue: { waiting: expect.any(Number), active: expect.any(Number), failed: expect.any(Number), completed: expect.any(Number) },
      youtube: { apiKey: false, mode: 'feed', quota: { units: expect.any(Number), budget: 10_000, exhausted: false, cause: null, resetsAt: expect.any(String) } },
    })
    const names = status.schedules.map((s: { name: string }) => s.name)
    expect(names).toEqual(expect.arrayContaining(['music.cleanup.daily', 'youtube.refreshAllChannels.hourly']))
    // SCHEDULER is off in tests: nothing is registered, so no next run
    expect(status.schedules.find((s: { name: string }) => s.name === 'music.cleanup.daily')).toMatchObject({ every: '17 3 * * *', nextRunAt: null })
  })

  test('run now: the schedule records its last run and outcome', async () => {
    const before = (await (await boss.client.get('/api/admin/schedules')).json()).schedules.find((s: { name: string }) => s.name === 'music.cleanup.daily')
    expect(before).toMatchObject({ lastRunAt: null, lastOutcome: null })
    const res = await boss.client.post('/api/admin/schedules/music.cleanup.daily/run')
    expect(res.status).toBe(200)
    const after = await until('the cleanup run', async () => {
      const list = (await (await boss.client.get('/api/admin/schedules')).json()).schedules
      return list.find((s: { name: string; lastRunAt: string | null }) => s.name === 'music.cleanup.daily' && s.lastRunAt)
    })
    expect(after).toMatchObject({ lastOutcome: 'completed', lastError: null })
    await expectError(boss.client.post('/api/admin/schedules/no.such.schedule/run'), 404, 'Schedule not found.')
  })

  test('jobs: a failed job shows its reason and owner; retry runs it again, delete removes it', async () => {
    const owner = await quickUser(t)
    const id = await brokenMusicJob(owner.id)
    const failed = await until('the failure', async () => (await failedJobs()).find((f) => f.jobId === id))
    expect(failed).toMatchObject({ name: 'music.run', title: 'A - Broken', error: 'job has neither a video URL nor an upload', owner: { id: owner.id, email: owner.email } })
    expect((await (await boss.client.get('/api/admin/jobs')).json()).counts.failed).toBeGreaterThanOrEqual(1)

    const retried = await boss.client.post(`/api/admin/jobs/${failed.id}/retry`)
    expect(await retried.json()).toEqual({ jobIds: [id] })
    // it fails again (nothing changed): a new failure, the old one is gone
    const again = await until('the second failure', async () => (await failedJobs()).find((f) => f.jobId === id && f.id !== failed.id))
    expect((await failedJobs()).some((f) => f.id === failed.id)).toBe(false)

    expect((await boss.client.delete(`/api/admin/jobs/${again.id}`)).status).toBe(204)
    expect((await failedJobs()).some((f) => f.jobId === id)).toBe(false)
    await expectError(boss.client.delete(`/api/admin/jobs/${again.id}`), 404, 'Job not found.')
    await expectError(boss.client.post(`/api/admin/jobs/${again.id}/retry`), 404, 'Job not found.')
    await expectError(boss.client.delete('/api/admin/jobs/not-a-uuid'), 404, 'Job not found.')
  })

  test('jobs: a failure whose music job its owner deleted is not listed, and cannot be retried', async () => {
    const owner = await quickUser(t)
    const id = await brokenMusicJob(owner.id)
    const failed = await until('the failure', async () => (await failedJobs()).find((f) => f.jobId === id))
    expect((await owner.client.delete(`/api/music/jobs/${id}/delete`)).status).toBeLessThan(300)
    await expectError(boss.client.post(`/api/admin/jobs/${failed.id}/retry`), 409, /deleted/)
    const id2 = await brokenMusicJob(owner.id)
    await until('the second failure', async () => (await failedJobs()).find((f) => f.jobId === id2))
    expect((await owner.client.delete(`/api/music/jobs/${id2}/delete`)).status).toBeLessThan(300)
    expect((await failedJobs()).some((f) => f.jobId === id2)).toBe(false)
  })

  test('mail: the settings in use (no password) and a test mail to me', async () => {
    const mail = await (await boss.client.get('/api/admin/mail')).json()
    expect(mail).toEqual({
      transport: 'smtp',
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      username: null,
      from: t.ctx.env.MAIL_FROM,
      folder: null,
      // mails waiting for SMTP or given up (src/mail/jobs.ts): none here
      outbox: { waiting: expect.any(Array), failed: [] },
    })
    expect((await boss.client.post('/api/admin/mail/test')).status).toBe(204)
    const received = await smtp.nextMail(boss.email)
    expect(received.subject).toBe('Tunefeed test mail')
  })

  test('mail: a server that cannot be reached is a 400 with the reason', async () => {
    // a port nothing listens on: taken, then freed
    const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
    const port = probe.port
    probe.stop(true)
    const broken = await createTestApp({ smtpUrl: `smtp://127.0.0.1:${port}?ignoreTLS=1` })
    try {
      const admin = await quickUser(broken, { admin: true })
      expect((await (await admin.client.get('/api/admin/mail')).json()).port).toBe(port)
      await expectError(admin.client.post('/api/admin/mail/test'), 400, /^Mail could not be sent: .*ECONNREFUSED/)
    } finally {
      await broken.close()
    }
  })
})

describe('users', () => {
  test('list and search (by part of the e-mail, wildcards literal), paged', async () => {
    const mark = crypto.randomUUID().slice(0, 6)
    for (const n of [1, 2, 3]) await t.ctx.db.insert(users).values({ email: `find-${mark}-${n}@example.com`, passwordHash: '!' })
    const page1 = await (await boss.client.get(`/api/admin/users?q=FIND-${mark}&per_page=2`)).json()
    expect(page1.totalPages).toBe(2)
    expect(page1.users.map((u: AdminUser) => u.email)).toEqual([`find-${mark}-1@example.com`, `find-${mark}-2@example.com`])
    expect(page1.users[0]).toEqual({
      id: expect.any(String),
      email: `find-${mark}-1@example.com`,
      admin: false,
      verified: false,
      disabled: false,
      createdAt: expect.any(String),
      lastSeenAt: null,
      jobCount: 0,
      subscriptionCount: 0,
      keepQuotaMb: null,
      keepUsedBytes: 0,
    })
    expect((await (await boss.client.get('/api/admin/users?q=%25')).json()).users).toEqual([])
    await expectError(boss.client.get('/api/admin/users?per_page=0'), 422, /per_page/)
    const all = await (await boss.client.get('/api/admin/users?per_page=100')).json()
    expect(all.users.find((u: AdminUser) => u.id === boss.id)).toMatchObject({ admin: true, lastSeenAt: expect.any(String) })
  })

  test('"Last seen" follows a session in use, not only its first sign-in', async () => {
    const user = await quickUser(t)
    const earlier = new Date(Date.now() - LAST_SEEN_EVERY - 60_000)
    await t.ctx.db.update(users).set({ lastSeenAt: earlier }).where(eq(users.id, user.id))
    sessionCache(t.ctx.db).forgetUser({ id: user.id })
    expect((await user.client.get('/api/auth/session')).status).toBe(200)
    const [row] = await t.ctx.db.select({ lastSeenAt: users.lastSeenAt }).from(users).where(eq(users.id, user.id))
    expect(row!.lastSeenAt!.getTime()).toBeGreaterThan(Date.now() - 60_000)
  })

  test('disable stops the sessions at once and refuses sign-in; enable lets the user sign in again', async () => {
    const user = await signUp(t)
    const [row] = await t.ctx.db.select().from(users).where(eq(users.email, user.email))
    expect((await user.client.get('/api/auth/session')).status).toBe(200)
    const res = await boss.client.request(`/api/admin/users/${row!.id}`, { method: 'PATCH', json: { disabled: true } })
    expect(await res.json()).toMatchObject({ id: row!.id, disabled: true })
    await expectError(user.client.get('/api/auth/session'), 401, 'Unauthorized')
    const again = new Client(t)
    await expectError(again.post('/api/auth/login', { email: user.email, password: user.password }), 403, 'Account is disabled.')
    await boss.client.request(`/api/admin/users/${row!.id}`, { method: 'PATCH', json: { disabled: false } })
    expect((await again.post('/api/auth/login', { email: user.email, password: user.password })).status).toBe(200)
    expect((await again.get('/api/auth/session')).status).toBe(200)
  })

  test('grant and revoke admin take effect at once', async () => {
    const user = await quickUser(t)
    await expectError(user.client.get('/api/admin/status'), 403)
    await boss.client.request(`/api/admin/users/${user.id}`, { method: 'PATCH', json: { admin: true } })
    expect((await user.client.get('/api/admin/status')).status).toBe(200)
    await boss.client.request(`/api/admin/users/${user.id}`, { method: 'PATCH', json: { admin: false } })
    await expectError(user.client.get('/api/admin/status'), 403)
  })

  test('the last admin can be neither revoked, disabled nor deleted', async () => {
    // every other admin of this app is demoted first
    await t.ctx.db.update(users).set({ admin: false }).where(eq(users.admin, true))
    await t.ctx.db.update(users).set({ admin: true }).where(eq(users.id, boss.id))
    for (const json of [{ admin: false }, { disabled: true }, { admin: false, disabled: true }]) {
      await expectError(boss.client.request(`/api/admin/users/${boss.id}`, { method: 'PATCH', json }), 409, 'Cannot remove the last admin.')
    }
    await expectError(boss.client.request(`/api/admin/users/${boss.id}`, { method: 'DELETE' }), 409, 'Cannot remove the last admin.')
    expect((await boss.client.get('/api/admin/status')).status).toBe(200)
    // with a second admin, the first may step down
    const second = await quickUser(t, { admin: true })
    const res = await second.client.request(`/api/admin/users/${boss.id}`, { method: 'PATCH', json: { admin: false } })
    expect(await res.json()).toMatchObject({ admin: false })
    await expectError(second.client.request(`/api/admin/users/${second.id}`, { method: 'PATCH', json: { admin: false } }), 409, 'Cannot remove the last admin.')
    await second.client.request(`/api/admin/users/${boss.id}`, { method: 'PATCH', json: { admin: true } })
  })

  test('delete removes the user with their jobs and files; bad input is 4xx', async () => {
    const user = await quickUser(t)
    const [job] = await t.ctx.db.insert(musicJobs).values({ userId: user.id, title: 'T', artist: 'A', album: 'B' }).returning()
    const dir = join(t.ctx.env.DATA_DIR, 'music', user.id, job!.id)
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'upload.mp3'), 'x')
    const listed = (await (await boss.client.get(`/api/admin/users?q=${user.email}`)).json()).users[0]
    expect(listed).toMatchObject({ jobCount: 1 })
    expect((await boss.client.delete(`/api/admin/users/${user.id}`)).status).toBe(204)
    expect(await t.ctx.db.select().from(musicJobs).where(eq(musicJobs.userId, user.id))).toEqual([])
    expect(existsSync(join(t.ctx.env.DATA_DIR, 'music', user.id))).toBe(false)
    await expectError(user.client.get('/api/auth/session'), 401)
    await expectError(boss.client.delete(`/api/admin/users/${user.id}`), 404, 'User not found.')
    await expectError(boss.client.request('/api/admin/users/nope', { method: 'PATCH', json: { admin: true } }), 404, 'User not found.')
    await expectError(boss.client.request(`/api/admin/users/${boss.id}`, { method: 'PATCH', json: { admin: 'yes' } }), 422, /admin/)
    await expectError(boss.client.request(`/api/admin/users/${boss.id}`, { method: 'PATCH', json: { owner: true } }), 422)
  })
})
