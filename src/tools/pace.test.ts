import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { createTestApp, type Client, type TestApp } from '../../tests/support/app.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../../tests/support/fake-ytdlp.ts'
import { makeTone, startMediaServer, type MediaServer } from '../../tests/support/media.ts'
import { listJobs, musicForm, postForm, waitForJob } from '../../tests/support/music.ts'
import { quickUser } from '../../tests/support/youtube.ts'
import { rowsOf } from '../db/rows.ts'
import { WAITING_SENTENCES } from '../music/queries.ts'
import type { MusicJob } from '../music/schema.ts'
import { ERROR_SENTENCES } from './failure.ts'
import { isPacedSite } from './pace.ts'

// The app-wide YouTube gate in one process (src/tools/pace-processes.test.ts: two processes on
// PostgreSQL, and a restart): a stand-in yt-dlp records when each call started; YouTube watch
// links are mapped by it to a tone on the loopback media server (jobs) or answered at once (-J
// look-ups of /sleep/0/...), so nothing leaves 127.0.0.1.
setDefaultTimeout(90_000)

const watch = (id: string) => `https://www.youtube.com/watch?v=${id}`
const IDS = ['paceJob0001', 'paceJob0002', 'paceJob0003', 'paceLook001', 'paceLook002', 'paceGood001', 'paceGood002', 'paceGood003', 'paceHour001', 'paceHour002', 'paceHour003']
const BOT = ['paceBot0001', 'paceBot0003', 'paceBot0004']

let media: MediaServer
let fake: FakeYtdlp
let dir: string
let tone: string
const apps: TestApp[] = []

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tunefeed-pace-'))
  media = await startMediaServer()
  await makeTone(join(dir, 'tone.mp3'), 2)
  media.addFile('tone.mp3', join(dir, 'tone.mp3'))
  tone = `${media.url}/files/tone.mp3`
  const urls: Record<string, string> = {}
  for (const id of IDS) urls[watch(id)] = id.startsWith('paceLook') || id.startsWith('paceHour') ? `${media.url}/sleep/0/Uploader` : tone
  for (const id of BOT) urls[watch(id)] = `${media.url}/fail/bot-check`
  fake = startFakeYtdlp({ urls })
}, 60_000)
afterAll(async () => {
  for (const t of apps) await t.close()
  await media?.stop()
  fake?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

async function app(env: Record<string, string>) {
  const t = await createTestApp({ env: { FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com', YTDLP_PATH: fake.path, JOB_CONCURRENCY: '4', ...env } })
  apps.push(t)
  return t
}

async function createJob(client: Client, url: string) {
  const res = await postForm(client, '/api/music/jobs/create', musicForm({ video_url: url, title: 'Song', artist: 'Band', album: 'Record' }))
  expect(res.status).toBe(201)
  return ((await res.json()) as { id: string }).id
}

/** When the stand-in started each call whose link is `url` (a -J look-up or a download). */
const startsOf = (url: string) =>
  fake
    .starts()
    .filter((s) => s.args.at(-1) === url)
    .map((s) => s.at)

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const value = await fn()
    if (value) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(50)
  }
}

const jobRow = async (client: Client, id: string): Promise<MusicJob> => (await listJobs(client)).jobs.find((j) => j.id === id)!

describe('pacing', () => {
  test('YouTube jobs and look-ups start YTDLP_SLEEP_SECONDS apart; other sites are not paced', async () => {
    const t = await app({ YTDLP_SLEEP_SECONDS: '1.5' })
    const { client } = await quickUser(t)
    const youtube = [watch('paceJob0001'), watch('paceJob0002'), watch('paceJob0003')]
    const jobs = await Promise.all(youtube.map((url) => createJob(client, url)))
    const lookups = [watch('paceLook001'), watch('paceLook002')].map((url) => client.request(`/api/music/grouping?video_url=${encodeURIComponent(url)}`))
    // another site, asked (by another user: this one's two look-up slots are taken by the YouTube
    // look-ups waiting their turn) while YouTube calls wait: straight through
    await until('the YouTube calls to queue up', async () => startsOf(youtube[0]!).length > 0)
    const other = (await quickUser(t)).client
    const asked = Date.now()
    expect((await other.request(`/api/music/grouping?video_url=${encodeURIComponent(`${media.url}/sleep/0/Elsewhere`)}`)).status).toBe(200)
    expect(startsOf(`${media.url}/sleep/0/Elsewhere`)[0]! - asked).toBeLessThan(1500)
    for (const res of await Promise.all(lookups)) expect(res.status).toBe(200)
    for (const id of jobs) expect((await waitForJob(client, id, 60_000)).completed).toMatch(/Z$/)

    const starts = [...youtube, watch('paceLook001'), watch('paceLook002')].flatMap(startsOf).sort((a, b) => a - b)
    expect(starts).toHaveLength(5)
    const gaps = starts.slice(1).map((at, i) => at - starts[i]!)
    // each stand-in records its start a moment after its turn: allow for that spread, never half a turn
    for (const gap of gaps) expect(gap).toBeGreaterThan(1500 - 400)
    expect(starts.at(-1)! - starts[0]!).toBeGreaterThan(4 * 1500 - 400)
    const status = (await (await quickUser(t, { admin: true })).client.get('/api/admin/status').then((r) => r.json())) as {
      youtube: { pace: { sleepSeconds: number; maxPerHour: number; lastHour: number; pausedUntil: string | null; pauseCause: string | null } }
    }
    expect(status.youtube.pace).toEqual({ sleepSeconds: 1.5, maxPerHour: 250, lastHour: 5, pausedUntil: null, pauseCause: null })
  })

  test('at the hourly limit a job waits in the queue (its row says why) and a look-up answers 503 with Retry-After', async () => {
    const t = await app({ YTDLP_MAX_PER_HOUR: '2' })
    const { client } = await quickUser(t)
    for (const id of ['paceHour001', 'paceHour002']) {
      expect((await client.request(`/api/music/grouping?video_url=${encodeURIComponent(watch(id))}`)).status).toBe(200)
    }
    const refused = await client.request(`/api/music/grouping?video_url=${encodeURIComponent(watch('paceHour003'))}`)
    expect(refused.status).toBe(503)
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(3500)
    expect(retryAfter).toBeLessThanOrEqual(3600)
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/^The server is busy with other YouTube links\. Try again in \d+ seconds\.$/)
    expect(startsOf(watch('paceHour003'))).toHaveLength(0)

    const id = await createJob(client, watch('paceGood001'))
    const waiting = await until('the job to wait', async () => (await jobRow(client, id)).waiting)
    expect(waiting).toEqual({ reason: 'hour', until: expect.stringMatching(/Z$/), message: WAITING_SENTENCES.hour })
    expect(new Date(waiting.until!).getTime() - Date.now()).toBeGreaterThan(3500_000)
    // back in the queue, delayed: no worker slot held, no attempt spent (the row says so a moment before the queue moves it)
    await until('the job to be delayed', async () => (await t.ctx.jobs.state(id)) === 'delayed', 5000)
    const row = await jobRow(client, id)
    expect(row.completed).toBeNull()
    expect(row.failed).toBeNull()
    expect(startsOf(watch('paceGood001'))).toHaveLength(0)
  })
})

describe('bot checks', () => {
  test('a bot check fails the job at once, pauses YouTube (other sites go on), tells the admins once, doubles on repeat and resets after a success', async () => {
    const t = await app({ BOT_CHECK_PAUSE_SECONDS: '2' })
    const admin = await quickUser(t, { admin: true })
    const { client } = await quickUser(t)
    const pauseMails = () => t.outbox.filter((m) => m.to === admin.email && /paused after a bot check/.test(m.subject))
    const pauseRow = async () =>
      rowsOf<{ ms: number; strikes: number }>(
        await t.ctx.db.execute(sql`select (extract(epoch from paused_until - paused_at) * 1000)::float8 as ms, strikes from youtube_pace where id = 1`),
      )[0]!
    const pauseOver = () =>
      until('the pause to end', async () => {
        const { youtube } = (await (await admin.client.get('/api/admin/status')).json()) as { youtube: { pace: { pausedUntil: string | null } } }
        return youtube.pace.pausedUntil === null
      })

    // the job that meets the bot check fails at once (one call, no retry): one pause, one message
    const a = await createJob(client, watch(BOT[0]!))
    const job = await waitForJob(client, a)
    expect({ kind: job.errorKind, error: job.error }).toEqual({ kind: 'bot_check', error: ERROR_SENTENCES.bot_check })
    expect(startsOf(watch(BOT[0]!))).toHaveLength(1)
    expect(await pauseRow()).toEqual({ ms: 2000, strikes: 1 })
    // another check met by a call that started before the pause (same wave): no new pause, no new message
    expect(await t.ctx.tools.pace.noteBotCheck('ERROR: [youtube] y: Sign in to confirm you’re not a bot.')).toBeNull()
    expect(await pauseRow()).toEqual({ ms: 2000, strikes: 1 })
    await until('the admin message', async () => pauseMails().length === 1)
    expect(pauseMails()[0]!.text).toContain('not a bot')
    await pauseOver()

    // the next bot check right after: twice as long
    const c = await createJob(client, watch(BOT[1]!))
    expect((await waitForJob(client, c)).errorKind).toBe('bot_check')
    expect(await pauseRow()).toEqual({ ms: 4000, strikes: 2 })
    const { youtube } = (await (await admin.client.get('/api/admin/status')).json()) as { youtube: { pace: { pausedUntil: string; pauseCause: string } } }
    const pausedUntil = new Date(youtube.pace.pausedUntil).getTime()
    expect(youtube.pace.pauseCause).toMatch(/not a bot/)
    // during the pause: a YouTube job waits (its row says why), another site's job goes through
    const good = await createJob(client, watch('paceGood002'))
    const elsewhere = await createJob(client, tone)
    const waiting = await until('the YouTube job to wait', async () => (await jobRow(client, good)).waiting)
    expect(waiting).toEqual({ reason: 'pause', until: new Date(pausedUntil).toISOString(), message: WAITING_SENTENCES.pause })
    expect((await waitForJob(client, elsewhere)).completed).toMatch(/Z$/)
    expect(startsOf(tone)[0]!).toBeLessThan(pausedUntil)
    const done = await waitForJob(client, good)
    expect(done.completed).toMatch(/Z$/)
    expect(done.waiting).toBeNull()
    expect(startsOf(watch('paceGood002'))[0]!).toBeGreaterThanOrEqual(pausedUntil)
    expect(pauseMails()).toHaveLength(2)

    // a success after the pause ended: the next pause is the base again
    expect((await pauseRow()).strikes).toBe(0)
    const d = await createJob(client, watch(BOT[2]!))
    expect((await waitForJob(client, d)).errorKind).toBe('bot_check')
    expect(await pauseRow()).toEqual({ ms: 2000, strikes: 1 })
    await until('the third message', async () => pauseMails().length === 3)
  })

  test('a look-up during a long pause answers 503 with Retry-After; a job waits in the queue; other sites go on', async () => {
    const t = await app({ BOT_CHECK_PAUSE_SECONDS: '600' })
    const { client } = await quickUser(t)
    await t.ctx.tools.pace.noteBotCheck('ERROR: [youtube] x: Sign in to confirm you’re not a bot.')
    const res = await client.request(`/api/music/grouping?video_url=${encodeURIComponent(watch('paceLook001'))}`)
    expect(res.status).toBe(503)
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(590)
    expect(((await res.json()) as { detail: string }).detail).toMatch(/^YouTube asked this server to confirm it is not a bot, so YouTube links are paused until .+Z\. Try again then\.$/)
    const lookup = await client.request(`/api/music/lookup?video_url=${encodeURIComponent(watch('paceLook002'))}`)
    expect(lookup.status).toBe(503)
    expect((await client.request(`/api/music/grouping?video_url=${encodeURIComponent(`${media.url}/sleep/0/Elsewhere`)}`)).status).toBe(200)
    const id = await createJob(client, watch('paceGood003'))
    expect((await until('the job to wait', async () => (await jobRow(client, id)).waiting))?.reason).toBe('pause')
    expect(await until('the job to be delayed', async () => (await t.ctx.jobs.state(id)) === 'delayed')).toBe(true)
  })
})

test('YouTube and its hosts are paced; other sites are not', () => {
  expect(isPacedSite('https://www.youtube.com/watch?v=1')).toBe(true)
  expect(isPacedSite('https://youtu.be/1')).toBe(true)
  expect(isPacedSite('https://music.youtube.com/watch?v=1')).toBe(true)
  expect(isPacedSite('https://notyoutube.com/x')).toBe(false)
  expect(isPacedSite('http://127.0.0.1:8080/page.html')).toBe(false)
})
