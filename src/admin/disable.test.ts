import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { serveTestApp, signUp, type Client } from '../../tests/support/app.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../../tests/support/fake-ytdlp.ts'
import { musicForm, postForm, startMusicTestApp, userIdOf, type MusicTestApp } from '../../tests/support/music.ts'
import { until } from '../../tests/support/wait.ts'
import { setAdmin } from '../auth/queries.ts'
import { getMusicJob } from '../music/queries.ts'
import { STOPPED_BY_DISABLE } from './stop-user.ts'

// Issue 25, finding 7: disabling a user closes their open sockets at once (not at the next ping:
// WS_PING_SECONDS is 10 minutes here) and stops their jobs, the running one (a stand-in yt-dlp
// that sleeps a minute) and the waiting ones. On PGlite and PostgreSQL.
setDefaultTimeout(90_000)

let t: MusicTestApp
let fake: FakeYtdlp
let server: ReturnType<typeof Bun.serve>
let admin: Client
let bob: Client

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

beforeAll(async () => {
  fake = startFakeYtdlp()
  t = await startMusicTestApp({ YTDLP_PATH: fake.path, WS_PING_SECONDS: '600', JOB_CONCURRENCY: '1' })
  server = serveTestApp(t)
  const signedUp = await signUp(t)
  admin = signedUp.client
  await setAdmin(t.ctx.db, signedUp.email, true)
  ;({ client: bob } = await signUp(t))
}, 60_000)
afterAll(async () => {
  await server?.stop(true)
  await t?.close()
  fake?.stop()
})

describe('PATCH /api/admin/users/{id} {disabled: true}', () => {
  test('closes the user’s sockets at once and stops their running and waiting jobs; other users go on', async () => {
    const aliceId = await userIdOf(t, t.alice)
    const open = (client: Client) => {
      const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api/music/jobs/listen`, { headers: { cookie: client.cookie } } as unknown as string[])
      const closed = new Promise<{ code: number; reason: string }>((resolve) => {
        ws.onclose = (e) => resolve({ code: e.code, reason: e.reason })
      })
      const opened = new Promise<void>((resolve, reject) => {
        ws.onopen = () => resolve()
        ws.onerror = () => reject(new Error('socket refused'))
      })
      return { ws, closed, opened }
    }
    const aliceSocket = open(t.alice)
    const bobSocket = open(bob)
    await Promise.all([aliceSocket.opened, bobSocket.opened])

    const ids: string[] = []
    for (const i of [1, 2, 3]) {
      const form = musicForm({ video_url: `${t.media.url}/sleep/60000/slow-${i}`, title: `Slow ${i}`, artist: 'A', album: 'B' })
      const res = await postForm(t.alice, '/api/music/jobs/create', form)
      expect(res.status).toBe(201)
      ids.push(((await res.json()) as { id: string }).id)
    }
    // one job runs (JOB_CONCURRENCY 1), its yt-dlp sleeping; the others wait
    await until('the first job running its yt-dlp', () => standIns().length === 1, 30_000)

    const patched = await admin.request(`/api/admin/users/${aliceId}`, { method: 'PATCH', json: { disabled: true } })
    expect(patched.status).toBe(200)
    const started = Date.now()
    const closed = await Promise.race([aliceSocket.closed, Bun.sleep(10_000).then(() => null)])
    expect(closed).toEqual({ code: 4001, reason: 'Session ended' })
    expect(Date.now() - started).toBeLessThan(10_000)
    await until('the running yt-dlp stopped', () => standIns().length === 0, 15_000)

    for (const id of ids) {
      const row = await getMusicJob(t.ctx.db, id)
      expect(row!.completed).toBeNull()
      expect(row!.failed).not.toBeNull()
      expect(row!.error).toBe(STOPPED_BY_DISABLE)
      expect(await t.ctx.jobs.state(id)).not.toMatch(/^(waiting|delayed|active)$/)
    }
    // nothing else starts for them
    await Bun.sleep(500)
    expect(standIns()).toEqual([])

    // bob's socket is still open
    expect(bobSocket.ws.readyState).toBe(WebSocket.OPEN)
    bobSocket.ws.close()
    aliceSocket.ws.close()
  })
})
