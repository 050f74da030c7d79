import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import NodeID3 from 'node-id3'
import { Client, createTestApp, signUp, type TestApp } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { startMediaServer, testMedia, type MediaServer, type TestMedia } from '../../tests/support/media.ts'
import { musicForm, postForm, userIdOf } from '../../tests/support/music.ts'
import { jobDir } from './files.ts'
import { insertMusicJob } from './queries.ts'
import { MAX_ARTWORK_BYTES } from './schema.ts'

// Per-user bounds (jobs at once, bytes stored) and the /tags bounds (artwork
// size, calls at once): clear 429/413 {detail}, others unaffected.
setDefaultTimeout(60_000)

let t: TestApp
let files: TestMedia
let alice: Client
let bob: Client
beforeAll(async () => {
  files = await testMedia()
  t = await createTestApp({ env: { MAX_JOBS_PER_USER: '2', MAX_STORED_BYTES_PER_USER: String(400 * 1024), TAGS_CONCURRENCY: '3' } })
  ;({ client: alice } = await signUp(t))
  ;({ client: bob } = await signUp(t))
}, 60_000)
afterAll(() => t?.close())

const upload = (client: Client, title = 'T') => postForm(client, '/api/music/jobs/create', musicForm({ title, artist: 'A', album: 'B' }, { path: files.mp3 }))

describe('jobs waiting or running per user (MAX_JOBS_PER_USER=2)', () => {
  test('a third unfinished job is 429 saying what to do; another user is not affected', async () => {
    const userId = await userIdOf(t, alice)
    const ids: string[] = []
    for (let i = 0; i < 2; i++) {
      const id = crypto.randomUUID()
      ids.push(id)
      await insertMusicJob(t.ctx.db, { id, userId, videoUrl: 'https://example.com/v', title: 'Q', artist: 'A', album: 'B' })
    }
    const detail = await expectError(upload(alice), 429)
    expect(detail).toContain('2 jobs waiting or running')
    expect(detail).toContain('wait for some to finish')
    expect((await upload(bob)).status).toBe(201)
    // once they are over, there is room again
    for (const id of ids) await t.ctx.db.execute(`update music_jobs set failed = now() where id = '${id}'`)
    expect((await upload(alice)).status).toBe(201)
  })
})

describe('bytes stored per user (MAX_STORED_BYTES_PER_USER=400 KB)', () => {
  test('a full store is 413 saying how much is used; an upload larger than what is left is 413 too', async () => {
    const { client } = await signUp(t)
    const userId = await userIdOf(t, client)
    const filler = join(jobDir(t.ctx.env.DATA_DIR, userId, 'old-job'), 'output')
    mkdirSync(filler, { recursive: true })
    const mp3Size = statSync(files.mp3).size
    // leave less room than the upload needs
    writeFileSync(join(filler, 'big.mp3'), new Uint8Array(400 * 1024 - Math.floor(mp3Size / 2)))
    const tooBig = await expectError(upload(client), 413)
    expect(tooBig).toContain('not room enough')
    writeFileSync(join(filler, 'big.mp3'), new Uint8Array(400 * 1024))
    const full = await expectError(upload(client), 413)
    expect(full).toMatch(/Your files take 400 KB of the 400 KB you may store: delete some jobs/)
    // deleting makes room
    writeFileSync(join(filler, 'big.mp3'), new Uint8Array(1))
    expect((await upload(client)).status).toBe(201)
  })
})

describe('POST /tags bounds', () => {
  test(`embedded artwork over ${MAX_ARTWORK_BYTES / 1024 / 1024} MB is left out; the text tags still come back`, async () => {
    const tagged = join(t.ctx.env.DATA_DIR, 'huge-cover.mp3')
    copyFileSync(files.mp3, tagged)
    const jpg = readFileSync(files.jpg)
    const huge = Buffer.concat([jpg, Buffer.alloc(MAX_ARTWORK_BYTES + 1024 - jpg.length)])
    NodeID3.write({ title: 'Big', artist: 'Cover', album: 'Art', image: { mime: 'image/jpeg', type: { id: 3, name: 'front cover' }, description: '', imageBuffer: huge } }, tagged)
    const res = await postForm(alice, '/api/music/tags', musicForm({}, { path: tagged }))
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ title: 'Big', artist: 'Cover', album: 'Art', grouping: null, artworkUrl: null })
  })

  test('at most 2 reads per user and TAGS_CONCURRENCY overall; a read beyond is 429 at once', async () => {
    const carol = (await signUp(t)).client
    // uploads held open: the server is mid-read until the test finishes them
    const held: (() => void)[] = []
    const holdOpen = (client: Client) => {
      const boundary = `b${crypto.randomUUID()}`
      let finish!: () => void
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.mp3"\r\n\r\n`))
          controller.enqueue(readFileSync(files.mp3))
          await new Promise<void>((resolve) => (finish = resolve))
          controller.enqueue(new TextEncoder().encode(`\r\n--${boundary}--\r\n`))
          controller.close()
        },
      })
      const res = client.request('/api/music/tags', { method: 'POST', body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } })
      held.push(() => finish())
      return res
    }
    const a1 = holdOpen(alice)
    const a2 = holdOpen(alice)
    await Bun.sleep(50)
    await expectError(postForm(alice, '/api/music/tags', musicForm({}, { path: files.mp3 })), 429, /try again in a moment/)
    const b1 = holdOpen(bob)
    await Bun.sleep(50)
    // 3 reads in progress: the overall limit
    await expectError(postForm(carol, '/api/music/tags', musicForm({}, { path: files.mp3 })), 429)
    held.forEach((finish) => finish())
    for (const res of await Promise.all([a1, a2, b1])) expect(res.status).toBe(200)
    // released: reads work again
    expect((await postForm(carol, '/api/music/tags', musicForm({}, { path: files.mp3 }))).status).toBe(200)
  })
})

describe('a playlist beyond the job limit (issue 25): refused before any job is made', () => {
  let pt: TestApp
  let media: MediaServer
  beforeAll(async () => {
    media = await startMediaServer()
    pt = await createTestApp({ env: { MAX_JOBS_PER_USER: '3', FETCH_ALLOW_HOSTS: '127.0.0.1' } })
  }, 60_000)
  afterAll(async () => {
    await pt?.close()
    await media?.stop()
  })

  test('3 entries with room for 2: 429 saying so, and no job at all; with room for 3, every id comes back', async () => {
    const { client } = await signUp(pt)
    const userId = await userIdOf(pt, client)
    const waiting = crypto.randomUUID()
    await insertMusicJob(pt.ctx.db, { id: waiting, userId, videoUrl: 'https://example.com/v', title: 'Q', artist: 'A', album: 'B' })
    const playlist = () => postForm(client, '/api/music/jobs/create', musicForm({ video_url: `${media.url}/playlist.rss`, playlist: 'true' }))
    const detail = await expectError(playlist(), 429)
    expect(detail).toBe(
      'This playlist would make 3 jobs, but you have room for 2 more (1 waiting or running, at most 3): no job was created. Wait for some to finish, or use a shorter playlist.',
    )
    const jobs = async () => ((await (await client.get('/api/music/jobs/list?page=1&per_page=50')).json()) as { jobs: { id: string }[] }).jobs
    expect((await jobs()).map((j) => j.id)).toEqual([waiting])

    await pt.ctx.db.execute(`update music_jobs set failed = now() where id = '${waiting}'`)
    const res = await playlist()
    expect(res.status).toBe(201)
    const { id, ids } = (await res.json()) as { id: string; ids: string[] }
    expect(ids).toHaveLength(3)
    expect(id).toBe(ids[0]!)
    expect((await jobs()).map((j) => j.id).sort()).toEqual([waiting, ...ids].sort())
  })
})
