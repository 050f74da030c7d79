import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HttpClient, listMusicJobs } from '../../tests/deploy/support.ts'
import { tempDatabase, type TempDatabase } from '../../tests/deploy/scale-support.ts'
import { adminCommand } from '../../tests/support/e2e.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../../tests/support/fake-ytdlp.ts'
import { makeTone, startMediaServer, type MediaServer } from '../../tests/support/media.ts'
import { startServerProcess, type ServerProcess } from '../../tests/support/server-process.ts'
import type { MusicJob } from '../music/schema.ts'

// The YouTube gate across real processes (src/tools/pace.test.ts covers it in one): two app
// processes on one PostgreSQL share the pace (each stand-in yt-dlp call records when it started),
// and a bot-check pause outlives a restart. YouTube links are mapped by the stand-in to loopback.
setDefaultTimeout(240_000)

const adminUrl = process.env.TEST_DATABASE_URL
const watch = (id: string) => `https://www.youtube.com/watch?v=${id}`
const EMAIL = 'pace-admin@example.com'
const PASSWORD = 'password123'

let work: string
let media: MediaServer
let fake: FakeYtdlp
let tone: string
const servers: ServerProcess[] = []

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tunefeed-pace-proc-'))
  media = await startMediaServer()
  await makeTone(join(work, 'tone.mp3'), 2)
  media.addFile('tone.mp3', join(work, 'tone.mp3'))
  tone = `${media.url}/files/tone.mp3`
  const urls: Record<string, string> = {}
  for (let i = 0; i < 8; i++) urls[watch(`procJob${i}`)] = tone
  for (let i = 0; i < 4; i++) urls[watch(`procLook${i}`)] = `${media.url}/sleep/0/Uploader`
  urls[watch('procBot')] = `${media.url}/fail/bot-check`
  fake = startFakeYtdlp({ urls })
}, 60_000)
afterAll(async () => {
  for (const s of servers) if (s.proc.exitCode === null) await s.stop('SIGKILL')
  await media?.stop()
  fake?.stop()
  rmSync(work, { recursive: true, force: true })
})

async function start(env: Record<string, string>) {
  const server = await startServerProcess(
    { FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com', YTDLP_PATH: fake.path, RATE_LIMIT_MAX: '1000', JOB_CONCURRENCY: '2', ...env },
    120_000,
  )
  servers.push(server)
  return server
}

async function login(server: ServerProcess) {
  const client = new HttpClient(server.url)
  const res = await client.json('/api/auth/login', { email: EMAIL, password: PASSWORD })
  if (res.status !== 200) throw new Error(`login: ${res.status} ${await res.text()}`)
  return client
}

async function createJob(client: HttpClient, url: string) {
  const form = new FormData()
  for (const [k, v] of Object.entries({ video_url: url, title: 'Song', artist: 'Band', album: 'Record' })) form.append(k, v)
  const res = await client.request('/api/music/jobs/create', { method: 'POST', body: form })
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { id: string }).id
}

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 90_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const value = await fn()
    if (value) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(100)
  }
}

const jobOf = async (client: HttpClient, id: string) => (await listMusicJobs(client)).find((j) => j.id === id)!
const finished = (client: HttpClient, id: string) => until(`job ${id}`, async () => ((j: MusicJob) => (j.completed || j.failed ? j : null))(await jobOf(client, id)))
const startsOf = (url: string) =>
  fake
    .starts()
    .filter((s) => s.args.at(-1) === url)
    .map((s) => s.at)
type Pace = { sleepSeconds: number; maxPerHour: number; lastHour: number; pausedUntil: string | null; pauseCause: string | null }
const paceOf = async (client: HttpClient) => ((await (await client.request('/api/admin/status')).json()) as { youtube: { pace: Pace } }).youtube.pace

describe.skipIf(!adminUrl)('two processes on one PostgreSQL', () => {
  let db: TempDatabase
  afterAll(async () => {
    await db?.drop().catch((err) => console.warn(`drop: ${err}`))
  })

  test('YouTube jobs and look-ups through both processes start YTDLP_SLEEP_SECONDS apart', async () => {
    db = await tempDatabase(adminUrl!)
    const dirA = join(work, 'a')
    const env = { DATABASE_URL: db.url, YTDLP_SLEEP_SECONDS: '2' }
    await adminCommand(['create-user', EMAIL, PASSWORD, '--admin'], { DATA_DIR: dirA, DATABASE_URL: db.url })
    // each process its own data folder (embedded queue), one database
    const [a, b] = await Promise.all([start({ ...env, DATA_DIR: dirA }), start({ ...env, DATA_DIR: join(work, 'b') })])
    const [viaA, viaB] = await Promise.all([login(a), login(b)])

    const links = [0, 1, 2, 3].map((i) => watch(`procJob${i}`))
    const lookups = [0, 1].map((i) => watch(`procLook${i}`))
    const ids = await Promise.all(links.map((url, i) => createJob(i % 2 ? viaB : viaA, url)))
    const looked = await Promise.all(lookups.map((url, i) => (i % 2 ? viaB : viaA).request(`/api/music/grouping?video_url=${encodeURIComponent(url)}`)))
    for (const res of looked) expect(res.status).toBe(200)
    for (const id of ids) expect((await finished(viaA, id)).completed).toMatch(/Z$/)

    const starts = [...links, ...lookups].flatMap(startsOf).sort((x, y) => x - y)
    expect(starts).toHaveLength(6)
    const gaps = starts.slice(1).map((at, i) => at - starts[i]!)
    // without the shared gate the two processes would start together; each start is recorded a moment after its turn
    for (const gap of gaps) expect(gap).toBeGreaterThan(2000 - 400)
    const pace = await paceOf(viaB)
    expect(pace).toEqual({ sleepSeconds: 2, maxPerHour: 250, lastHour: 6, pausedUntil: null, pauseCause: null })
    await Promise.all([a.stop(), b.stop()])
  })
})

describe('a restart', () => {
  test('a bot-check pause outlives a restart: the job after it waits (saying why) and starts once the pause ends', async () => {
    const dataDir = join(work, 'restart')
    // long enough to outlast a restart on a busy machine
    const env = { DATA_DIR: dataDir, BOT_CHECK_PAUSE_SECONDS: '40' }
    await adminCommand(['create-user', EMAIL, PASSWORD, '--admin'], { DATA_DIR: dataDir })
    const first = await start(env)
    let client = await login(first)
    const bot = await finished(client, await createJob(client, watch('procBot')))
    expect(bot.errorKind).toBe('bot_check')
    const before = await paceOf(client)
    expect(before.pausedUntil).toMatch(/Z$/)
    expect(before.pauseCause).toMatch(/not a bot/)
    // the admins were told, once (no SMTP_URL: the mail is a file under DATA_DIR/mail)
    const pauseMails = () =>
      readdirSync(join(dataDir, 'mail'))
        .map((f) => readFileSync(join(dataDir, 'mail', f), 'utf8'))
        .filter((m) => m.includes('paused after a bot check'))
    await until('the admin mail', async () => pauseMails().length === 1)
    await first.stop()

    const second = await start(env)
    client = await login(second)
    expect((await paceOf(client)).pausedUntil).toBe(before.pausedUntil)
    const pausedUntil = new Date(before.pausedUntil!).getTime()
    const id = await createJob(client, watch('procJob7'))
    const waiting = await until('the job to wait', async () => (await jobOf(client, id)).waiting)
    expect(waiting.reason).toBe('pause')
    expect(waiting.until).toBe(before.pausedUntil)
    expect((await finished(client, id)).completed).toMatch(/Z$/)
    expect(startsOf(watch('procJob7'))[0]!).toBeGreaterThanOrEqual(pausedUntil)
    expect(pauseMails()).toHaveLength(1)
    await second.stop()
  })
})
