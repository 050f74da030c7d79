import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { createTestApp, signUp, type Client, type TestApp } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { startMediaServer, testMedia, type MediaServer, type TestMedia } from '../../tests/support/media.ts'
import { musicForm, postForm, userIdOf, waitForJob, waitForWebdav } from '../../tests/support/music.ts'
import { startWebdavServer, type TestWebdav } from '../../tests/support/webdav.ts'
import { saveWebdav } from '../webdav/queries.ts'

// The URL guard on every URL the music feature fetches, with real requests
// on loopback only (127.0.0.1, 127.0.0.2, ::1): nothing here sends a packet
// anywhere else, not even a DNS query (every host is a literal or localhost).
// Private, link-local and metadata ranges are judged in url-guard.test.ts.
setDefaultTimeout(30_000)

let off: TestApp // allow-list off: the production default
let partial: TestApp // allow-list 127.0.0.2 only: a first hop may pass, a hop to 127.0.0.1 may not
let target: MediaServer // on 127.0.0.1: must never be reached
let v6: ReturnType<typeof Bun.serve>
let v6Hits = 0
let front: MediaServer // on 127.0.0.2
let files: TestMedia
let dav: TestWebdav
let a: Client
let b: Client

beforeAll(async () => {
  ;[target, front, files, dav] = await Promise.all([
    startMediaServer(),
    startMediaServer({ hostname: '127.0.0.2' }),
    testMedia(),
    startWebdavServer(),
  ])
  v6 = Bun.serve({ hostname: '::1', port: 0, fetch: () => (v6Hits++, new Response('v6')) })
  off = await createTestApp()
  partial = await createTestApp({ env: { FETCH_ALLOW_HOSTS: '127.0.0.2' } })
  ;({ client: a } = await signUp(off))
  ;({ client: b } = await signUp(partial))
}, 60_000)
afterAll(async () => {
  await Promise.all([off?.close(), partial?.close()])
  await Promise.all([target?.stop(), front?.stop(), dav?.stop(), v6?.stop(true)])
})

const fields = { title: 'T', artist: 'A', album: 'B' }

describe('with the allow-list off, loopback and non-http URLs are refused before any request', () => {
  const refused = () => [
    `${target.url}/audio.mp3`,
    `http://[::1]:${v6.port}/`,
    `http://localhost:${target.url.split(':').pop()}/audio.mp3`,
    `http://127.1:${target.url.split(':').pop()}/audio.mp3`,
    `http://0x7f000001:${target.url.split(':').pop()}/audio.mp3`,
  ]

  test('video_url at job creation', async () => {
    for (const url of refused()) await expectError(postForm(a, '/api/music/jobs/create', musicForm({ ...fields, video_url: url })), 422, /video_url: /)
    await expectError(postForm(a, '/api/music/jobs/create', musicForm({ ...fields, video_url: 'file:///etc/passwd' })), 422, 'video_url: Invalid Link')
  })

  test('artwork_url at job creation', async () => {
    for (const url of refused())
      await expectError(postForm(a, '/api/music/jobs/create', musicForm({ ...fields, artwork_url: url }, { path: files.mp3 })), 422, /artwork_url: /)
    await expectError(
      postForm(a, '/api/music/jobs/create', musicForm({ ...fields, artwork_url: 'file:///etc/passwd' }, { path: files.mp3 })),
      422,
      'artwork_url: Invalid Link',
    )
  })

  test('grouping and artwork lookups', async () => {
    for (const url of [...refused(), 'file:///etc/passwd']) {
      await expectError(a.get(`/api/music/grouping?video_url=${encodeURIComponent(url)}`), 422, /video_url/)
      await expectError(a.get(`/api/music/artwork?artwork_url=${encodeURIComponent(url)}`), 422, /artwork_url/)
    }
  })

  test('a stored WebDAV URL on loopback: the job completes, the upload is refused and marked failed', async () => {
    await saveWebdav(off.ctx.db, off.ctx.cipher, await userIdOf(off, a), { username: dav.username, password: dav.password, url: dav.url })
    const res = await postForm(a, '/api/music/jobs/create', musicForm(fields, { path: files.mp3 }))
    const job = await waitForJob(a, ((await res.json()) as { id: string }).id)
    expect(job.completed).not.toBeNull()
    expect((await waitForWebdav(a, job.id)).webdav).toBe('failed')
    expect(dav.listFiles()).toEqual([])
  })

  test('…and none of those servers saw a single request', () => {
    expect(target.hits).toEqual([])
    expect(v6Hits).toBe(0)
  })
})

describe('a redirect to loopback is refused at the hop (allow-list: 127.0.0.2 only)', () => {
  const viaFront = (path: string) => `${front.url}/redirect?to=${encodeURIComponent(`${target.url}${path}`)}`

  test('artwork lookup', async () => {
    await expectError(b.get(`/api/music/artwork?artwork_url=${encodeURIComponent(viaFront('/cover.png'))}`), 400, 'Unable to get artwork.')
  })

  test('grouping (yt-dlp, through the guarding proxy)', async () => {
    // the same page straight from the allowed host works
    const ok = await b.get(`/api/music/grouping?video_url=${encodeURIComponent(`${front.url}/page.html`)}`)
    expect(await ok.json()).toEqual({ grouping: 'Test Uploader' })
    await expectError(b.get(`/api/music/grouping?video_url=${encodeURIComponent(viaFront('/page.html'))}`), 400, 'Unable to get grouping.')
  })

  test('a URL job whose video redirects to loopback fails', async () => {
    const res = await postForm(b, '/api/music/jobs/create', musicForm({ ...fields, video_url: viaFront('/audio.mp3') }))
    expect(res.status).toBe(201)
    const job = await waitForJob(b, ((await res.json()) as { id: string }).id)
    expect(job.failed).not.toBeNull()
  })

  test('artwork behind such a redirect is left out; the track is still made', async () => {
    const res = await postForm(b, '/api/music/jobs/create', musicForm({ ...fields, artwork_url: viaFront('/cover.jpg') }, { path: files.mp3 }))
    const job = await waitForJob(b, ((await res.json()) as { id: string }).id)
    expect(job.completed).not.toBeNull()
    const mp3 = new Uint8Array(await (await b.request(job.downloadUrl!)).arrayBuffer())
    expect(Buffer.from(mp3).includes(readFileSync(files.jpg))).toBe(false)
  })

  test('…the first hop was served, the loopback target never reached', () => {
    expect(front.hits.some((h) => h.startsWith('/redirect'))).toBe(true)
    expect(target.hits).toEqual([])
  })
})
