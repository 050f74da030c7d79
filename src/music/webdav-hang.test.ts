import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { musicForm, postForm, startMusicTestApp, userIdOf, waitForJob, waitForWebdav, type MusicTestApp } from '../../tests/support/music.ts'
import { startSilentServer } from '../../tests/support/smtp.ts'
import { startWebdavServer, type TestWebdav } from '../../tests/support/webdav.ts'
import { saveWebdav } from '../webdav/queries.ts'
import { musicJobs } from './tables.ts'

// Issue 29, 5: a WebDAV server that accepts and never answers must not hold the track back.
// The job completes when the conversion ends; the upload follows on its own (music.webdav:
// its own time limit and retries) and its outcome shows in the row's `webdav`.

let t: MusicTestApp
let silent: Awaited<ReturnType<typeof startSilentServer>>
let dav: TestWebdav
beforeAll(async () => {
  silent = await startSilentServer()
  dav = await startWebdavServer()
  t = await startMusicTestApp({ WEBDAV_TIMEOUT_SECONDS: '1' }, { retryDelayMs: 200 })
}, 60_000)
afterAll(async () => {
  await t?.close()
  await silent?.stop()
  await dav?.stop()
})

describe('a WebDAV server that hangs', () => {
  test('the job completes and downloads at once; the upload times out on its own, is retried, then marked failed', async () => {
    const userId = await userIdOf(t, t.alice)
    await saveWebdav(t.ctx.db, t.ctx.cipher, userId, { username: 'u', password: 'p', url: `http://127.0.0.1:${silent.port}/dav/` })
    const started = performance.now()
    const res = await postForm(t.alice, '/api/music/jobs/create', musicForm({ title: 'Hang', artist: 'A', album: 'B' }, { path: t.files.mp3 }))
    expect(res.status).toBe(201)
    const { id } = (await res.json()) as { id: string }
    const job = await waitForJob(t.alice, id, 20_000)
    const readyMs = performance.now() - started
    console.log(`track ready ${Math.round(readyMs)} ms after the request, with the WebDAV server hanging`)
    expect(job.completed).not.toBeNull()
    expect(job.failed).toBeNull()
    expect((await t.alice.request(job.downloadUrl!)).status).toBe(200)
    // the WebDAV outcome comes later, on its own: three attempts of 1 s each, then failed
    const done = await waitForWebdav(t.alice, id, 30_000)
    expect(done.webdav).toBe('failed')
    expect(silent.connections).toBeGreaterThanOrEqual(3)
    const [row] = await t.ctx.db.select().from(musicJobs).where(eq(musicJobs.id, id))
    expect(row!.webdavError).toBe('the WebDAV server did not answer within 1 s')
  }, 60_000)

  test('the same path uploads to a server that answers', async () => {
    const userId = await userIdOf(t, t.alice)
    await saveWebdav(t.ctx.db, t.ctx.cipher, userId, { username: dav.username, password: dav.password, url: dav.url })
    const res = await postForm(t.alice, '/api/music/jobs/create', musicForm({ title: 'Fine', artist: 'A', album: 'B' }, { path: t.files.mp3 }))
    const { id } = (await res.json()) as { id: string }
    await waitForJob(t.alice, id, 20_000)
    const done = await waitForWebdav(t.alice, id, 30_000)
    expect(done.webdav).toBe('uploaded')
    expect(dav.listFiles()).toContain(done.downloadFilename!)
  }, 60_000)
})
