import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createTestApp, signUp, type Client, type TestApp } from '../../tests/support/app.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../../tests/support/fake-ytdlp.ts'
import { startMediaServer, type MediaServer } from '../../tests/support/media.ts'
import { setAdmin } from '../auth/queries.ts'

// Request-time yt-dlp calls on a real port: bounded overall and per user, given up (child killed)
// when the client goes away, and handed the admin's cookies as a private file removed after.
setDefaultTimeout(60_000)

let t: TestApp
let fake: FakeYtdlp
let media: MediaServer
let server: ReturnType<typeof Bun.serve>
let base: string
let users: Client[]

/** PIDs of running stand-in yt-dlp processes (their command line names the stand-in's folder). */
function standIns(): number[] {
  const dir = fake.path.slice(0, fake.path.lastIndexOf('/'))
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ')
      } catch {
        return false
      }
    })
    .map(Number)
}

/** Runs `fn` while counting stand-in processes every 15 ms; the most seen at once. */
async function mostAtOnce<T>(fn: () => Promise<T>): Promise<{ most: number; result: T }> {
  let most = 0
  let sampling = true
  const sampler = (async () => {
    while (sampling) {
      most = Math.max(most, standIns().length)
      await Bun.sleep(15)
    }
  })()
  try {
    return { result: await fn(), most: Math.max(most, standIns().length) }
  } finally {
    sampling = false
    await sampler
  }
}

/** GET over the real port with the client's session cookie. */
const grouping = (client: Client, url: string, signal?: AbortSignal) =>
  fetch(`${base}/api/music/grouping?video_url=${encodeURIComponent(url)}`, { headers: { cookie: client.cookie }, signal })

beforeAll(async () => {
  fake = startFakeYtdlp()
  media = await startMediaServer()
  t = await createTestApp({
    env: { YTDLP_PATH: fake.path, FETCH_ALLOW_HOSTS: '127.0.0.1', LOOKUP_CONCURRENCY: '3', LOOKUP_CONCURRENCY_PER_USER: '2', LOOKUP_TIMEOUT_SECONDS: '20' },
  })
  server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: t.app.fetch, idleTimeout: 60 })
  base = `http://127.0.0.1:${server.port}`
  users = [(await signUp(t)).client, (await signUp(t)).client, (await signUp(t)).client]
}, 60_000)
afterAll(async () => {
  await server?.stop(true)
  await t?.close()
  await media?.stop()
  fake?.stop()
})

describe('look-ups under limits', () => {
  test('30 parallel /grouping: every one answers, never more than 3 yt-dlp at once (2 per user)', async () => {
    const { most, result: results } = await mostAtOnce(() =>
      Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const res = await grouping(users[i % 3]!, `${media.url}/sleep/400/uploader-${i}`)
          return { status: res.status, body: (await res.json()) as { grouping?: string } }
        }),
      ),
    )
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(200))
    expect(results.map((r) => r.body.grouping)).toEqual(Array.from({ length: 30 }, (_, i) => `uploader-${i}`))
    expect(most).toBeGreaterThanOrEqual(2)
    expect(most).toBeLessThanOrEqual(3)
  })

  test('one user alone gets at most 2 at once', async () => {
    const { most, result: statuses } = await mostAtOnce(() =>
      Promise.all(Array.from({ length: 6 }, (_, i) => grouping(users[0]!, `${media.url}/sleep/400/solo-${i}`).then((r) => r.status))),
    )
    expect(statuses).toEqual(Array(6).fill(200))
    expect(most).toBe(2)
  })

  test('a client that goes away leaves no yt-dlp behind', async () => {
    const controller = new AbortController()
    const pending = grouping(users[1]!, `${media.url}/sleep/30000/gone`, controller.signal).catch((err: Error) => err)
    const until = Date.now() + 10_000
    while (standIns().length === 0 && Date.now() < until) await Bun.sleep(20)
    expect(standIns()).toHaveLength(1)
    controller.abort()
    expect(await pending).toBeInstanceOf(Error)
    const gone = Date.now() + 5_000
    while (standIns().length > 0 && Date.now() < gone) await Bun.sleep(20)
    expect(standIns()).toEqual([])
  })

  test('a look-up that outlives its own limit answers 400 before the server would cut it', async () => {
    const quick = await createTestApp({ ctx: { tools: t.ctx.tools }, env: { LOOKUP_TIMEOUT_SECONDS: '1', FETCH_ALLOW_HOSTS: '127.0.0.1' } })
    try {
      const { client } = await signUp(quick)
      const started = Date.now()
      const res = await client.get(`/api/music/grouping?video_url=${encodeURIComponent(`${media.url}/sleep/30000/slow`)}`)
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual({ detail: 'Unable to get grouping.' })
      expect(Date.now() - started).toBeLessThan(5_000)
    } finally {
      await quick.close()
    }
  })

  test('a look-up that waited for its turn past its deadline: 503, the server is busy, with Retry-After', async () => {
    // one slot, 2 s per look-up: a second look-up waits at most 1 s (half) for the slot
    const busy = await createTestApp({ ctx: { tools: t.ctx.tools }, env: { LOOKUP_TIMEOUT_SECONDS: '2', LOOKUP_CONCURRENCY: '1', FETCH_ALLOW_HOSTS: '127.0.0.1' } })
    try {
      const [first, second] = [(await signUp(busy)).client, (await signUp(busy)).client]
      const path = (id: string) => `/api/music/lookup?video_url=${encodeURIComponent(`${media.url}/sleep/30000/${id}`)}` as const
      const holding = first.get(path('holds-the-slot'))
      await Bun.sleep(200)
      const started = Date.now()
      const res = await second.get(path('waits'))
      expect(res.status).toBe(503)
      expect(res.headers.get('retry-after')).toBe('5')
      expect(await res.json()).toEqual({ detail: 'The server is busy with other look-ups. Try again in 5 seconds.' })
      expect(Date.now() - started).toBeLessThan(1_900)
      // the one that had the slot ran out of its own time: that link could not be read (400)
      expect((await holding).status).toBe(400)
    } finally {
      await busy.close()
    }
  })
})

describe('cookies for yt-dlp', () => {
  const cookies = [
    '# Netscape HTTP Cookie File',
    '.youtube.com\tTRUE\t/\tTRUE\t1893456000\tSID\tsecret-sid-value',
    '#HttpOnly_.youtube.com\tTRUE\t/\tTRUE\t1893456000\tHSID\tsecret-hsid',
    'vimeo.com\tFALSE\t/\tFALSE\t0\tsession\tabc',
    '',
  ].join('\n')

  test('set by an admin: never returned, handed to each call as a private file removed after, then removed', async () => {
    const admin = users[2]!
    const { email } = (await (await admin.get('/api/auth/session')).json()) as { email: string }
    await setAdmin(t.ctx.db, email, true)
    const bad = await admin.request('/api/admin/tools/cookies', { method: 'PUT', body: 'not cookies at all', headers: { 'content-type': 'text/plain' } })
    expect(bad.status).toBe(422)
    expect(await bad.json()).toEqual({ detail: 'Not a Netscape cookies file.' })
    expect((await users[0]!.request('/api/admin/tools/cookies', { method: 'PUT', body: cookies })).status).toBe(403)

    const put = await admin.request('/api/admin/tools/cookies', { method: 'PUT', body: cookies, headers: { 'content-type': 'text/plain' } })
    expect(put.status).toBe(200)
    expect(await put.json()).toEqual({ set: true, count: 3, domains: ['vimeo.com', 'youtube.com'] })
    const status = await (await admin.get('/api/admin/status')).text()
    expect(status).not.toContain('secret-sid-value')
    expect(JSON.parse(status).cookies).toMatchObject({ set: true, count: 3, domains: ['vimeo.com', 'youtube.com'] })

    expect((await grouping(users[0]!, `${media.url}/sleep/10/with-cookies`)).status).toBe(200)
    const [file] = fake.cookieFiles()
    expect(file!.text).toBe(cookies)
    expect(file!.mode).toBe(0o600)
    expect(file!.path).toStartWith(t.ctx.env.DATA_DIR)
    expect(existsSync(file!.path)).toBe(false)

    expect((await admin.delete('/api/admin/tools/cookies')).status).toBe(204)
    expect(JSON.parse(await (await admin.get('/api/admin/status')).text()).cookies).toEqual({ set: false, updatedAt: null, count: 0, domains: [] })
    expect((await grouping(users[0]!, `${media.url}/sleep/10/without-cookies`)).status).toBe(200)
    expect(fake.cookieFiles()).toHaveLength(1)
  })

  test('over 1 MB → 413', async () => {
    const res = await users[2]!.request('/api/admin/tools/cookies', { method: 'PUT', body: `${cookies}${'#'.repeat(1024 * 1024)}` })
    expect(res.status).toBe(413)
  })
})
