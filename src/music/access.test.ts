import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { websocket } from 'hono/bun'
import { createTestApp, signUp, type Client, type TestApp } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { testMedia, type TestMedia } from '../../tests/support/media.ts'
import { listJobs, musicForm, postForm, waitForJob } from '../../tests/support/music.ts'
import type { MusicJob, MusicJobEvent } from './schema.ts'

// One user's jobs are invisible to another: list, downloads, delete and the
// live socket. The socket needs a real server (Bun.serve with hono/bun).
setDefaultTimeout(30_000)

let t: TestApp
let server: ReturnType<typeof Bun.serve>
let files: TestMedia
let alice: Client
let bob: Client
let aliceJob: MusicJob

beforeAll(async () => {
  files = await testMedia()
  t = await createTestApp()
  server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: t.app.fetch, websocket })
  t.ctx.hub.attach(server)
  ;({ client: alice } = await signUp(t))
  ;({ client: bob } = await signUp(t))
  const png = readFileSync(files.png).toString('base64')
  const res = await postForm(
    alice,
    '/api/music/jobs/create',
    musicForm({ title: 'Mine', artist: 'Alice', album: 'A', artwork_url: `data:image/png;base64,${png}` }, { path: files.mp3 }),
  )
  aliceJob = await waitForJob(alice, ((await res.json()) as { id: string }).id)
}, 60_000)
afterAll(async () => {
  await server?.stop(true)
  await t?.close()
})

/** A socket on /api/music/jobs/listen with the client's session cookie; collects messages. */
async function listen(client: Client, headers: Record<string, string> = {}) {
  const messages: MusicJobEvent[] = []
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api/music/jobs/listen`, {
    headers: { cookie: client.cookie, ...headers },
  } as unknown as string[])
  ws.onmessage = (e) => messages.push(JSON.parse(String(e.data)))
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve()
    ws.onerror = () => reject(new Error('socket refused'))
  })
  return { ws, messages }
}

describe("another user's jobs do not exist for them", () => {
  test('not listed', async () => {
    expect((await listJobs(bob)).jobs).toEqual([])
    expect((await listJobs(alice)).jobs.map((j) => j.id)).toContain(aliceJob.id)
  })

  test('not downloadable: MP3, upload, artwork', async () => {
    for (const url of [aliceJob.downloadUrl!, aliceJob.filenameUrl!, aliceJob.artworkUrl!]) {
      expect((await alice.request(url)).status).toBe(200)
      await expectError(bob.request(url), 404, 'Job not found.')
    }
  })

  test('not deletable', async () => {
    await expectError(bob.delete(`/api/music/jobs/${aliceJob.id}/delete`), 404, 'Job not found.')
    expect((await alice.request(aliceJob.downloadUrl!)).status).toBe(200)
  })

  test('their socket hears only their own jobs', async () => {
    const a = await listen(alice)
    const b = await listen(bob)
    const res = await postForm(alice, '/api/music/jobs/create', musicForm({ title: 'Live', artist: 'A', album: 'B' }, { path: files.wav }))
    const { id } = (await res.json()) as { id: string }
    await waitForJob(alice, id)
    await Bun.sleep(50)
    const statuses = a.messages.filter((m) => 'id' in m && m.id === id).map((m) => m.status)
    expect(statuses[0]).toBe('STARTED')
    expect(statuses.at(-1)).toBe('COMPLETED')
    const progress = a.messages.flatMap((m) => (m.status === 'PROGRESS' ? [m.progress] : []))
    expect(progress.at(-1)).toBe(100)
    expect([...progress].sort((x, y) => x - y)).toEqual(progress)
    expect(b.messages).toEqual([])
    a.ws.close()
    b.ws.close()
  })

  test('no socket without a session or from another origin', async () => {
    await expect(listen(new (alice.constructor as typeof Client)(t))).rejects.toThrow('socket refused')
    await expect(listen(alice, { origin: 'http://evil.example' })).rejects.toThrow('socket refused')
    const same = await listen(alice, { origin: `http://127.0.0.1:${server.port}` })
    same.ws.close()
  })
})
