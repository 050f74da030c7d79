import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import type { FakeYoutube } from '../../scripts/fake-youtube.ts'
import { Client, signUp } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { until } from '../../tests/support/wait.ts'
import { scanFor } from '../../tests/support/scan.ts'
import { musicForm, postForm, startMusicTestApp, userIdOf, waitForJob, type MusicTestApp } from '../../tests/support/music.ts'
import { startTestFake } from '../../tests/support/youtube.ts'
import { jobFailures } from '../jobs/tables.ts'
import { musicRun } from '../music/jobs.ts'
import { musicJobs } from '../music/tables.ts'
import { enqueueChannelRefresh } from '../youtube/jobs.ts'
import { youtubeVideos } from '../youtube/tables.ts'
import { ERROR_SENTENCES } from '../tools/failure.ts'
import type { Notification } from './schema.ts'
import { sealPlainUrls } from './send.ts'
import { notificationSettings } from './tables.ts'

// Real receivers on 127.0.0.1: an ntfy-like server (JSON publishing at its root)
// and a webhook receiver; the app runs the real queue and the fake YouTube.
interface NtfyMessage {
  topic: string
  title: string
  message: string
  click?: string
}
const ntfy: NtfyMessage[] = []
const hooks: Notification[] = []
let failingHits = 0
const receiver = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(req) {
    const path = new URL(req.url).pathname
    if (req.method !== 'POST') return new Response('Method Not Allowed', { status: 405 })
    if (path === '/') ntfy.push(await req.json())
    else if (path === '/hook') hooks.push(await req.json())
    else if (path === '/broken') {
      failingHits++
      return new Response('receiver is down', { status: 500 })
    } else return new Response('Not Found', { status: 404 })
    return Response.json({ ok: true })
  },
})
const base = `http://127.0.0.1:${receiver.port}`

let t: MusicTestApp
let fake: FakeYoutube
let aliceId: string
beforeAll(async () => {
  fake = await startTestFake()
  t = await startMusicTestApp({ ...fake.env, YOUTUBE_RETRY_BASE_MS: '1' }, { retryDelayMs: 100 })
  aliceId = await userIdOf(t, t.alice)
}, 60_000)
afterAll(async () => {
  await t.close()
  await fake.stop()
  receiver.stop(true)
})


const settings = (body: Record<string, unknown>, client = t.alice) => client.put('/api/notifications', body)

describe('notification settings', () => {
  test('defaults, saving, validation through the outbound guard; 401 for anonymous', async () => {
    expect(await (await t.alice.get('/api/notifications')).json()).toEqual({
      ntfyUrl: null,
      webhookUrl: null,
      onJobFinished: true,
      onJobFailed: true,
      onNewVideos: true,
    })
    await expectError(new Client(t).get('/api/notifications'), 401, 'Unauthorized')
    await expectError(settings({ ntfyUrl: 'not a url' }), 422, /ntfyUrl/)
    await expectError(settings({ webhookUrl: 'ftp://example.com/x' }), 422, /webhookUrl/)
    // decided by the guard without any traffic: a private address is refused
    await expectError(settings({ webhookUrl: 'http://10.20.30.40/hook' }), 422, /webhookUrl: URL is not allowed/)
    await expectError(settings({ onJobFinished: 'yes' }), 422, /onJobFinished/)
    const saved = { ntfyUrl: `${base}/tunefeed-alerts`, webhookUrl: `${base}/hook`, onJobFinished: true, onJobFailed: true, onNewVideos: true }
    // answered masked: scheme and host only
    const masked = { ...saved, ntfyUrl: base, webhookUrl: base }
    expect(await (await settings(saved)).json()).toEqual(masked)
    expect(await (await t.alice.get('/api/notifications')).json()).toEqual(masked)
  })

  test('Send test reaches both receivers and reports their status; a failing receiver is a 400 with its status, never its body', async () => {
    ntfy.length = 0
    hooks.length = 0
    const sent = await t.alice.post('/api/notifications/test')
    expect(sent.status).toBe(200)
    expect(await sent.json()).toEqual({
      detail: 'ntfy answered 200. Webhook answered 200.',
      targets: [
        { target: 'ntfy', ok: true, status: 200, detail: 'ntfy answered 200.' },
        { target: 'webhook', ok: true, status: 200, detail: 'Webhook answered 200.' },
      ],
    })
    expect(ntfy).toEqual([{ topic: 'tunefeed-alerts', title: 'Tunefeed test', message: 'Notifications from your Tunefeed server reach you here.', tags: ['bell'] } as NtfyMessage])
    expect(hooks).toMatchObject([{ event: 'test', title: 'Tunefeed test' }])

    const bob = (await signUp(t)).client
    await expectError(bob.post('/api/notifications/test'), 400, 'No notification URL is set.')
    await settings({ webhookUrl: `${base}/broken` }, bob)
    const broken = await bob.post('/api/notifications/test')
    expect(broken.status).toBe(400)
    const text = await broken.text()
    expect(JSON.parse(text).detail).toBe('Webhook answered 500 Internal Server Error.')
    expect(text).not.toContain('receiver is down')
    await settings({ webhookUrl: `${base}/nothing-here` }, bob)
    await expectError(bob.post('/api/notifications/test'), 400, 'Webhook answered 404 Not Found.')
    // a port nobody listens on: the reason in words
    const closed = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
    const closedUrl = `http://127.0.0.1:${closed.port}/hook`
    closed.stop(true)
    await settings({ webhookUrl: closedUrl }, bob)
    await expectError(bob.post('/api/notifications/test'), 400, 'Webhook: the connection was refused or closed before an answer.')
  })
})

describe('notification URLs are secrets (issue 25, finding 10)', () => {
  test('stored encrypted: no row holds the URL; GET shows scheme and host only', async () => {
    const { client: carol } = await signUp(t)
    const secretUrl = `${base}/hook?token=carol-secret-token-123`
    expect((await settings({ webhookUrl: secretUrl, ntfyUrl: `${base}/carol-private-topic` }, carol)).status).toBe(200)
    const found = await scanFor(t.ctx.db, t.ctx.env.DATA_DIR, ['carol-secret-token-123', 'carol-private-topic'])
    expect(found.rows).toEqual([])
    const shown = await (await carol.get('/api/notifications')).text()
    expect(shown).not.toContain('carol-secret-token-123')
    expect(shown).not.toContain('carol-private-topic')
    expect(JSON.parse(shown)).toMatchObject({ webhookUrl: base, ntfyUrl: base })
  })

  test('saving without the URLs, or with them as GET shows them, keeps the stored ones; null removes one', async () => {
    const { client: dave } = await signUp(t)
    await settings({ ntfyUrl: `${base}/dave-topic`, webhookUrl: `${base}/hook` }, dave)
    // the web form sends back what it shows (masked), with a changed checkbox
    const shown = (await (await dave.get('/api/notifications')).json()) as Record<string, unknown>
    expect((await settings({ ...shown, onNewVideos: false }, dave)).status).toBe(200)
    expect((await settings({ onJobFailed: false }, dave)).status).toBe(200)
    ntfy.length = 0
    hooks.length = 0
    expect((await dave.post('/api/notifications/test')).status).toBe(200)
    expect(ntfy.map((m) => m.topic)).toEqual(['dave-topic'])
    expect(hooks).toHaveLength(1)
    expect(await (await dave.get('/api/notifications')).json()).toEqual({ ntfyUrl: base, webhookUrl: base, onJobFinished: true, onJobFailed: false, onNewVideos: true })
    expect(await (await settings({ webhookUrl: null }, dave)).json()).toMatchObject({ ntfyUrl: base, webhookUrl: null })
    expect(await (await settings({ ntfyUrl: '' }, dave)).json()).toMatchObject({ ntfyUrl: null, webhookUrl: null })
  })

  test('a row stored in plain text by an older version is read, and sealed by the start-up sweep', async () => {
    const { client: erin } = await signUp(t)
    const erinId = await userIdOf(t, erin)
    await t.ctx.db.insert(notificationSettings).values({ userId: erinId, webhookUrl: `${base}/hook?erin-plain-secret` })
    expect(await (await erin.get('/api/notifications')).json()).toMatchObject({ webhookUrl: base })
    expect(await sealPlainUrls(t.ctx.db, t.ctx.cipher)).toBeGreaterThanOrEqual(1)
    expect((await scanFor(t.ctx.db, t.ctx.env.DATA_DIR, ['erin-plain-secret'])).rows).toEqual([])
    hooks.length = 0
    expect((await erin.post('/api/notifications/test')).status).toBe(200)
    expect(hooks).toHaveLength(1)
    expect(await sealPlainUrls(t.ctx.db, t.ctx.cipher)).toBe(0)
  })

  test('Send test: at most 10 a minute per user, then 429 with Retry-After; others are not held back', async () => {
    const { client: frank } = await signUp(t)
    await settings({ webhookUrl: `${base}/hook` }, frank)
    for (let i = 0; i < 10; i++) expect((await frank.post('/api/notifications/test')).status).toBe(200)
    const limited = await frank.post('/api/notifications/test')
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60)
    expect(((await limited.json()) as { detail: string }).detail).toEqual(expect.any(String))
    expect((await t.alice.post('/api/notifications/test')).status).toBe(200)
  })
})

describe('sent by queued jobs', () => {
  test('a finished job and a failed job (with its reason)', async () => {
    ntfy.length = 0
    hooks.length = 0
    const res = await postForm(t.alice, '/api/music/jobs/create', musicForm({ title: 'Tone', artist: 'Tester', album: 'Bench' }, { path: t.files.wav }))
    expect(res.status).toBe(201)
    const { id } = await res.json()
    expect((await waitForJob(t.alice, id)).completed).not.toBeNull()
    const done = await until('the finished message', () => hooks.find((h) => h.event === 'job.finished'))
    expect(done).toEqual({ event: 'job.finished', title: 'Music job finished', text: 'Tester - Tone is ready to download.', url: null, items: [] })
    await until('ntfy', () => ntfy.find((m) => m.title === 'Music job finished'))

    // a job that cannot run (neither a link nor an upload) is given up at once
    const [row] = await t.ctx.db.insert(musicJobs).values({ userId: aliceId, title: 'Broken', artist: 'Nobody', album: 'X' }).returning()
    mkdirSync(join(t.ctx.env.DATA_DIR, 'music', aliceId, row!.id), { recursive: true })
    await t.ctx.jobs.enqueue(musicRun, { jobId: row!.id }, { jobId: row!.id })
    const failed = await until('the failed message', () => hooks.find((h) => h.event === 'job.failed'))
    // the sentence a person reads (as the job list shows it), never the internal message
    expect(failed.text).toBe(`Nobody - Broken: ${ERROR_SENTENCES.internal}`)
    const pushed = await until('ntfy', () => ntfy.find((m) => m.title === 'Music job failed'))
    expect(pushed.message).toBe(failed.text)
  }, 60_000)

  test('a refresh with new videos: one message with their titles and links (none for the first fill)', async () => {
    const kitchen = fake.channel('@tiny-kitchen')
    expect((await t.alice.put(`/api/youtube/subscriptions/user?channel_id=${kitchen.id}`)).status).toBe(200)
    await until('the first fill', async () => (await t.ctx.db.select().from(youtubeVideos).where(eq(youtubeVideos.channelId, kitchen.id))).length > 0)
    await Bun.sleep(300)
    hooks.length = 0
    ntfy.length = 0
    const added = fake.addUploads(kitchen.id, 2)
    await enqueueChannelRefresh(t.ctx, kitchen.id)
    const news = await until('the new-videos message', () => hooks.find((h) => h.event === 'videos.new'))
    expect(news.title).toBe(`2 new videos from ${kitchen.title}`)
    expect(news.items).toEqual(expect.arrayContaining(added.map((v) => ({ title: v.title, url: `https://www.youtube.com/watch?v=${v.id}` }))))
    expect(news.items).toHaveLength(2)
    const pushed = await until('ntfy', () => ntfy.find((m) => m.title === news.title))
    for (const v of added) expect(pushed.message).toContain(`${v.title}: https://www.youtube.com/watch?v=${v.id}`)
    await Bun.sleep(500)
    expect(hooks.filter((h) => h.event === 'videos.new')).toHaveLength(1)
  }, 60_000)

  test('a receiver answering 500 is retried, then given up; the job it reports on is not affected', async () => {
    await settings({ webhookUrl: `${base}/broken`, onJobFinished: true })
    failingHits = 0
    const res = await postForm(t.alice, '/api/music/jobs/create', musicForm({ title: 'Second', artist: 'Tester', album: 'Bench' }, { path: t.files.wav }))
    const { id } = await res.json()
    const job = await waitForJob(t.alice, id)
    const completedAt = job.completed
    expect(job.failed).toBeNull()
    expect(completedAt).toEqual(expect.any(String))
    const failure = await until('the give-up', async () => {
      const [row] = await t.ctx.db.select().from(jobFailures).where(eq(jobFailures.name, 'notifications.send'))
      return row
    }, 30_000)
    expect(failingHits).toBe(4)
    expect(failure).toMatchObject({ userId: aliceId, error: 'Webhook answered 500 Internal Server Error.' })
    // still completed, still downloadable
    const again = await waitForJob(t.alice, id)
    expect(again.completed).toBe(completedAt)
    expect((await t.alice.request(again.downloadUrl!)).status).toBe(200)
  }, 60_000)
})
