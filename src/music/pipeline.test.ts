import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { parseBuffer } from 'music-metadata'
import type { Client } from '../../tests/support/app.ts'
import type { MediaServer, TestMedia } from '../../tests/support/media.ts'
import { filesUnder, listJobs, musicForm, postForm, startMusicTestApp, userIdOf, waitForJob, waitForWebdav, type MusicTestApp } from '../../tests/support/music.ts'
import { startWebdavServer, type TestWebdav } from '../../tests/support/webdav.ts'
import { eq } from 'drizzle-orm'
import { Cipher } from '../lib/secret.ts'
import { saveWebdav } from '../webdav/queries.ts'
import { musicJobs } from './tables.ts'
import { jobDir } from './files.ts'
import type { MusicJobEvent } from './schema.ts'

// Full jobs against real parts: yt-dlp and ffmpeg from Debian, a media server
// and a WebDAV server on 127.0.0.1, the bunqueue worker of the test app.
setDefaultTimeout(30_000)

let t: MusicTestApp
let media: MediaServer
let files: TestMedia
let dav: TestWebdav
let alice: Client

beforeAll(async () => {
  ;[t, dav] = await Promise.all([startMusicTestApp(), startWebdavServer()])
  ;({ media, files, alice } = t)
}, 60_000)
afterAll(async () => {
  await Promise.all([t?.close(), dav?.stop()])
})

/** Downloads the job's MP3 through the API and reads its tags back. */
async function downloadedTags(client: Client, downloadUrl: string) {
  const res = await client.request(downloadUrl)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('audio/mpeg')
  expect(res.headers.get('content-disposition')).toStartWith('attachment;')
  const bytes = new Uint8Array(await res.arrayBuffer())
  const meta = await parseBuffer(bytes, { mimeType: 'audio/mpeg' })
  return { bytes, meta }
}

describe('music jobs end to end', () => {
  test('a URL job: page with JSON-LD → yt-dlp → MP3 tagged with artwork fetched from its URL', async () => {
    const events: MusicJobEvent[] = []
    const stop = t.ctx.hub.listen((_topic, m) => events.push(m as MusicJobEvent))
    const res = await postForm(
      alice,
      '/api/music/jobs/create',
      musicForm({
        video_url: `${media.url}/page.html`,
        artwork_url: `${media.url}/cover.jpg`,
        title: 'Song (Live Remix)',
        artist: 'The Tester',
        album: 'S - Remix',
        grouping: 'Test Uploader',
      }),
    )
    expect(res.status).toBe(201)
    const { id } = (await res.json()) as { id: string }
    const job = await waitForJob(alice, id)
    stop()
    expect(job.failed).toBeNull()
    expect(job.completed).toMatch(/Z$/)
    expect(job.progress).toBe(100)
    expect(job.downloadFilename).toBe('The Tester - Song (Live Remix).mp3')
    expect(job.webdav).toBeNull()
    const { meta } = await downloadedTags(alice, job.downloadUrl!)
    expect(meta.format.codec).toMatch(/MPEG 1 Layer 3/)
    expect(meta.common.title).toBe('Song (Live Remix)')
    expect(meta.common.artist).toBe('The Tester')
    expect(meta.common.album).toBe('S - Remix')
    expect(meta.common.grouping).toBe('Test Uploader')
    expect(Buffer.from(meta.common.picture![0]!.data).equals(readFileSync(files.jpg))).toBe(true)
    expect(meta.common.picture![0]!.format).toBe('image/jpeg')
    const mine = events.filter((e) => 'id' in e && e.id === id).map((e) => e.status)
    expect(mine[0]).toBe('STARTED')
    expect(mine.at(-1)).toBe('COMPLETED')
    expect(mine).toContain('PROGRESS')
  })

  test.each([
    ['mp3', () => files.mp3, 'audio/mpeg'],
    ['wav', () => files.wav, 'audio/wav'],
  ] as const)('an upload job (%s) with artwork from a data URI, pushed to WebDAV', async (kind, path, type) => {
    await alice.post('/api/webdav', { username: dav.username, password: dav.password, url: dav.url })
    const png = readFileSync(files.png)
    const res = await postForm(
      alice,
      '/api/music/jobs/create',
      musicForm(
        {
          artwork_url: `data:image/png;base64,${png.toString('base64')}`,
          title: `Upload ${kind} / test`,
          artist: 'Ärtist: "Quoted"',
          album: 'Album',
        },
        { path: path(), name: `source.${kind}`, type },
      ),
    )
    expect(res.status).toBe(201)
    const { id } = (await res.json()) as { id: string }
    const job = await waitForJob(alice, id)
    expect(job.failed).toBeNull()
    expect(job.originalFilename).toBe(`source.${kind}`)
    expect(job.filenameUrl).toBe(`/api/music/jobs/${id}/upload`)
    expect(job.artworkUrl).toBe(`/api/music/jobs/${id}/artwork`)
    expect(job.downloadFilename).toBe('Ärtist  Quoted - Upload mp3 test.mp3'.replace('mp3', kind).replace('  ', ' '))
    const { bytes, meta } = await downloadedTags(alice, job.downloadUrl!)
    expect(meta.common.title).toBe(`Upload ${kind} / test`)
    expect(meta.common.artist).toBe('Ärtist: "Quoted"')
    expect(meta.common.album).toBe('Album')
    expect(meta.common.grouping).toBeUndefined()
    expect(Buffer.from(meta.common.picture![0]!.data).equals(png)).toBe(true)
    // the same file landed on the WebDAV server (its own job, after completion)
    expect((await waitForWebdav(alice, id)).webdav).toBe('uploaded')
    expect(dav.listFiles()).toContain(job.downloadFilename!)
    expect(dav.readFile(job.downloadFilename!).equals(Buffer.from(bytes))).toBe(true)
    // the original upload and the stored artwork download as they were sent
    const upload = await alice.request(job.filenameUrl!)
    expect(upload.headers.get('content-disposition')).toContain(`filename="source.${kind}"`)
    expect(Buffer.from(await upload.arrayBuffer()).equals(readFileSync(path()))).toBe(true)
    const art = await alice.request(job.artworkUrl!)
    expect(art.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await art.arrayBuffer()).equals(png)).toBe(true)
    await alice.delete('/api/webdav')
  })

  test('a WebDAV failure leaves the MP3 downloadable and says so', async () => {
    // a real server that refuses the stored password (the account was good when saved)
    const currentUserId = await userIdOf(t, alice)
    await saveWebdav(t.ctx.db, t.ctx.cipher, currentUserId, { username: dav.username, password: 'wrong', url: dav.url })
    const res = await postForm(alice, '/api/music/jobs/create', musicForm({ title: 'T', artist: 'A', album: 'B' }, { path: files.mp3 }))
    const { id } = (await res.json()) as { id: string }
    const job = await waitForJob(alice, id)
    expect(job.completed).not.toBeNull()
    expect(job.failed).toBeNull()
    expect((await waitForWebdav(alice, id)).webdav).toBe('failed')
    expect((await alice.request(job.downloadUrl!)).status).toBe(200)
    await alice.delete('/api/webdav')
  })

  test('a WebDAV password that no longer decrypts (changed secret) is a WebDAV failure, not a failed job', async () => {
    const currentUserId = await userIdOf(t, alice)
    await saveWebdav(t.ctx.db, new Cipher('an-older-secret-an-older-secret-an-older'), currentUserId, { username: dav.username, password: dav.password, url: dav.url })
    const res = await postForm(alice, '/api/music/jobs/create', musicForm({ title: 'K', artist: 'A', album: 'B' }, { path: files.mp3 }))
    const { id } = (await res.json()) as { id: string }
    const job = await waitForJob(alice, id)
    expect(job.completed).not.toBeNull()
    expect(job.failed).toBeNull()
    expect((await waitForWebdav(alice, id)).webdav).toBe('failed')
    const [row] = await t.ctx.db.select().from(musicJobs).where(eq(musicJobs.id, id))
    expect(row!.webdavError).toContain('Enter the WebDAV account again')
    expect((await alice.request(job.downloadUrl!)).status).toBe(200)
    await alice.delete('/api/webdav')
  })

  test('downloads honour Range', async () => {
    const res = await postForm(alice, '/api/music/jobs/create', musicForm({ title: 'R', artist: 'A', album: 'B' }, { path: files.mp3 }))
    const { id } = (await res.json()) as { id: string }
    const job = await waitForJob(alice, id)
    const whole = Buffer.from(await (await alice.request(job.downloadUrl!)).arrayBuffer())
    const part = await alice.request(job.downloadUrl!, { headers: { range: 'bytes=10-19' } })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe(`bytes 10-19/${whole.length}`)
    expect(Buffer.from(await part.arrayBuffer()).equals(whole.subarray(10, 20))).toBe(true)
    const tail = await alice.request(job.downloadUrl!, { headers: { range: 'bytes=-5' } })
    expect(Buffer.from(await tail.arrayBuffer()).equals(whole.subarray(whole.length - 5))).toBe(true)
    const beyond = await alice.request(job.downloadUrl!, { headers: { range: `bytes=${whole.length}-` } })
    expect(beyond.status).toBe(416)
    expect(beyond.headers.get('content-range')).toBe(`bytes */${whole.length}`)
  })

  test('delete removes the job and every file it had', async () => {
    const res = await postForm(
      alice,
      '/api/music/jobs/create',
      musicForm(
        { title: 'Del', artist: 'A', album: 'B', artwork_url: `data:image/jpeg;base64,${readFileSync(files.jpg).toString('base64')}` },
        { path: files.wav },
      ),
    )
    const { id } = (await res.json()) as { id: string }
    await waitForJob(alice, id)
    const currentUserId = await userIdOf(t, alice)
    const dir = jobDir(t.ctx.env.DATA_DIR, currentUserId, id)
    expect(filesUnder(dir)).toEqual(['artwork.jpg', 'output/A - Del.mp3', 'upload.wav'])
    const del = await alice.delete(`/api/music/jobs/${id}/delete`)
    expect(del.status).toBe(200)
    expect(filesUnder(dir)).toEqual([])
    expect((await listJobs(alice)).jobs.find((j) => j.id === id)).toBeUndefined()
    expect((await alice.get(`/api/music/jobs/${id}/download`)).status).toBe(404)
  })

  test('a failing source ends failed, not stuck, with its temp files gone', async () => {
    const res = await postForm(alice, '/api/music/jobs/create', musicForm({ video_url: `${media.url}/text.txt`, title: 'X', artist: 'Y', album: 'Z' }))
    const { id } = (await res.json()) as { id: string }
    const job = await waitForJob(alice, id)
    expect(job.failed).toMatch(/Z$/)
    expect(job.completed).toBeNull()
    expect(job.downloadUrl).toBeNull()
    const currentUserId = await userIdOf(t, alice)
    expect(filesUnder(jobDir(t.ctx.env.DATA_DIR, currentUserId, id))).toEqual([])
  })
})
