import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FakeYoutube } from '../../scripts/fake-youtube.ts'
import { S3Store } from '../../src/storage/s3.ts'
import { watchUrl } from '../../src/youtube/listen/audio.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../support/fake-ytdlp.ts'
import { startKeptMedia, type KeptMedia } from '../support/kept-media.ts'
import { makeTone, startMediaServer, type MediaServer } from '../support/media.ts'
import { startTestS3, type TestS3 } from '../support/s3.ts'
import { startServerProcess, type ServerProcess } from '../support/server-process.ts'
import { startTestFake } from '../support/youtube.ts'
import { startBunqueueServer, tempDatabase, type BunqueueServer, type TempDatabase } from './scale-support.ts'
import { createMusicJob, HttpClient, listMusicJobs, signUp, waitForMusicJobs } from './support.ts'

// Issue 34's "done when" with real parts: two app processes, each with its own DATA_DIR (no
// shared volume), one PostgreSQL, one bunqueue server and one bucket (s3rver behind the SigV4
// check). A track, a listen-mode audio and a kept video made through one are
// in the bucket and served with ranges by the other; a process killed with SIGKILL mid-fetch
// loses nothing; the store stopped during a job makes it wait; deleting removes the objects.

const adminUrl = process.env.TEST_DATABASE_URL
const PREFIX = 'scale/'

describe.skipIf(!adminUrl)('two processes, no shared volume, one bucket', () => {
  const work = mkdtempSync(join(tmpdir(), 'tunefeed-storage-scale-'))
  const dataA = join(work, 'a')
  const dataB = join(work, 'b')
  let appDb: TempDatabase
  let queueDb: TempDatabase
  let queue: BunqueueServer
  let s3: TestS3
  let fake: FakeYoutube
  let media: MediaServer
  let kept: KeptMedia
  let ytdlp: FakeYtdlp
  let bucket: S3Store
  let a: ServerProcess
  let b: ServerProcess
  let env: Record<string, string>
  let kitchen: string[]
  let star: string[]

  beforeAll(async () => {
    for (const d of [dataA, dataB]) mkdirSync(d, { recursive: true })
    const tone = join(work, 'tone.mp3')
    ;[appDb, queueDb, s3, fake, media, kept] = await Promise.all([
      tempDatabase(adminUrl!),
      tempDatabase(adminUrl!),
      startTestS3(),
      startTestFake(),
      startMediaServer(),
      startKeptMedia(),
      makeTone(tone, 8),
    ])
    media.addFile('tone.mp3', tone)
    queue = await startBunqueueServer(queueDb.url, work)
    kitchen = [...fake.channel('@tiny-kitchen').uploads]
    star = fake.channel('@star-lab').uploads.filter((id) => fake.videos.get(id)!.kind === 'video')
    ytdlp = startFakeYtdlp({
      urls: Object.fromEntries([...kitchen.map((id) => [watchUrl(id), `${kept.url}/v/${id}.html`]), ...star.map((id) => [watchUrl(id), `${media.url}/files/tone.mp3`])]),
    })
    bucket = new S3Store({ endpoint: s3.endpoint, bucket: s3.bucket, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, prefix: PREFIX, virtualHostedStyle: false })
    env = {
      DATABASE_URL: appDb.url,
      QUEUE_URL: queue.url,
      JOB_CONCURRENCY: '2',
      LOG_LEVEL: 'debug',
      FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com',
      YTDLP_PATH: ytdlp.path,
      KEEP_MIN_FREE_MB: '0',
      ...fake.env,
      ...s3.env({ S3_PREFIX: PREFIX }),
    }
    // A first (it migrates, and sends the sign-up mail into its own DATA_DIR), then B
    a = await startServerProcess({ ...env, DATA_DIR: dataA }, 120_000)
  }, 240_000)

  afterAll(async () => {
    for (const p of [a, b]) if (p && p.proc.exitCode === null) await p.stop('SIGKILL')
    ytdlp?.stop()
    await Promise.all([fake?.stop(), media?.stop(), kept?.stop(), queue?.stop()])
    await s3?.close()
    for (const db of [appDb, queueDb]) await db?.drop().catch((err) => console.warn(`drop: ${err}`))
    rmSync(work, { recursive: true, force: true })
  }, 60_000)

  async function keys(prefix: string): Promise<string[]> {
    const out: string[] = []
    for await (const o of bucket.list(prefix)) out.push(o.key)
    return out.sort()
  }
  const bytesOf = async (key: string) => Buffer.from(await new Response((await bucket.get(key))!.body).arrayBuffer())
  /** Polls `path` on a client until it answers `status` (a range request). */
  async function until206(client: HttpClient, path: string, timeoutMs: number): Promise<Response> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const res = await client.request(path, { headers: { range: 'bytes=10-109' } })
      if (res.status === 206) return res
      await res.body?.cancel()
      if (Date.now() > deadline) throw new Error(`${path}: still ${res.status} after ${timeoutMs} ms`)
      await Bun.sleep(300)
    }
  }
  /** Files on a process's disk that look like kept files (none should outlive their work). */
  const media_files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && /\.(mp3|mp4|m4a|opus|webm|nfo|wav)$/.test(e.name))
      .map((e) => join(e.parentPath, e.name))
  const logged = (p: ServerProcess, msg: 'job started' | 'job done', job: string) =>
    p
      .stdout()
      .split('\n')
      .some((l) => l.includes(`"msg":"${msg}"`) && l.includes(`"job":"${job}"`))

  test('a track, a listen-mode audio and a kept video: stored once, served with ranges by the other process, removed with their job', async () => {
    const viaA = new HttpClient(a.url)
    await signUp(viaA, join(dataA, 'mail'), 'storage-scale@example.com')
    b = await startServerProcess({ ...env, DATA_DIR: dataB }, 120_000)
    const viaB = viaA.at(b.url)
    expect((await viaB.request('/api/auth/session')).status).toBe(200)
    for (const handle of ['@tiny-kitchen', '@star-lab']) expect((await viaA.request(`/api/youtube/subscriptions/user?channel_id=${handle}`, { method: 'PUT' })).status).toBe(200)
    for (let i = 0; ; i++) {
      const list = (await (await viaB.request('/api/youtube/videos/list?page=1&per_page=100')).json()) as { videos: { id: string }[] }
      if ([kitchen[0], star[0], star[1]].every((id) => list.videos.some((v) => v.id === id))) break
      if (i > 200) throw new Error('the channels were not refreshed')
      await Bun.sleep(300)
    }

    // the track: made through A, served by B
    const wav = join(work, 'tone.wav')
    await makeTone(wav, 5, 'wav')
    const jobId = await createMusicJob(viaA, wav, { title: 'Shared' })
    const [job] = await waitForMusicJobs(viaB, [jobId], 120_000)
    expect(job!.failed).toBeNull()
    const trackKey = (await keys('music/')).find((k) => k.includes(`/${jobId}/output/`))!
    expect(trackKey).toBeDefined()
    const track = await until206(viaB, job!.downloadUrl!, 10_000)
    expect(track.headers.get('content-range')).toBe(`bytes 10-109/${(await bytesOf(trackKey)).length}`)
    expect(Buffer.from(await track.arrayBuffer()).equals((await bytesOf(trackKey)).subarray(10, 110))).toBe(true)

    // listen-mode audio: asked on A, served by B
    expect((await viaA.request(`/api/youtube/videos/${star[1]}/audio`, { method: 'POST' })).status).toBe(200)
    const audio = await until206(viaB, `/api/youtube/videos/${star[1]}/audio`, 120_000)
    const audioKey = (await keys('audio/')).find((k) => k.startsWith(`audio/${star[1]}.`))!
    expect(Buffer.from(await audio.arrayBuffer()).equals((await bytesOf(audioKey)).subarray(10, 110))).toBe(true)

    // a podcast episode: turned on through A (its fetch queued with a fair background priority
    // the bunqueue server accepts), its feed read through B and the episode served by B
    const starId = fake.channel('@star-lab').id
    expect((await viaA.json(`/api/youtube/channels/${starId}/podcast`, { enabled: true, keepLast: 1 }, 'PUT')).status).toBe(200)
    type Feeds = { feeds: { channelId: string; url: string; ready: number }[] }
    const deadline = Date.now() + 120_000
    let feed: Feeds['feeds'][number] | undefined
    while (!(feed?.ready === 1)) {
      if (Date.now() > deadline) throw new Error(`no episode ready: ${JSON.stringify(feed)}`)
      await Bun.sleep(300)
      feed = ((await (await viaB.request('/api/youtube/podcasts')).json()) as Feeds).feeds.find((f) => f.channelId === starId)
    }
    const feedPath = new URL(feed.url).pathname
    const xml = await (await viaB.request(feedPath)).text()
    const enclosure = new URL(/<enclosure url="([^"]+)"/.exec(xml)![1]!.replaceAll('&amp;', '&')).pathname
    const episode = await until206(viaB, enclosure, 10_000)
    const episodeKey = (await keys('audio/podcast/')).find((k) => /\.mp3$/.test(k))!
    expect(Buffer.from(await episode.arrayBuffer()).equals((await bytesOf(episodeKey)).subarray(10, 110))).toBe(true)

    // a kept video: asked on A, served by B
    expect((await viaA.json(`/api/youtube/videos/${kitchen[0]}/keep`, { maxHeight: 360 }, 'PUT')).status).toBe(202)
    const video = await until206(viaB, `/api/youtube/videos/${kitchen[0]}/file`, 120_000)
    expect(video.headers.get('content-type')).toBe('video/mp4')
    const videoKey = (await keys('videos/')).find((k) => k.endsWith(`[${kitchen[0]}].mp4`))!
    expect(Buffer.from(await video.arrayBuffer()).equals((await bytesOf(videoKey)).subarray(10, 110))).toBe(true)

    // no shared volume: neither process keeps a finished file on its own disk
    expect([...media_files(dataA), ...media_files(dataB)]).toEqual([])
    expect(s3.badSignatures).toBe(0)

    // removed with their job / keep
    expect((await viaB.request(`/api/music/jobs/${jobId}/delete`, { method: 'DELETE' })).status).toBe(200)
    expect((await keys('music/')).filter((k) => k.includes(`/${jobId}/`))).toEqual([])
    expect((await viaB.request(`/api/youtube/videos/${kitchen[0]}/keep`, { method: 'DELETE' })).status).toBe(204)
    expect((await keys('videos/')).filter((k) => k.includes(`[${kitchen[0]}]`))).toEqual([])
    expect((await viaA.request(`/api/youtube/videos/${kitchen[0]}/file`)).status).toBe(404)
  }, 600_000)

  test('kill -9 of the process fetching a kept video: the other one fetches it, stores it once and serves it', async () => {
    const viaA = new HttpClient(a.url)
    expect((await viaA.json('/api/auth/login', { email: 'storage-scale@example.com', password: 'password123' })).status).toBe(200)
    const id = kitchen[1]!
    kept.slowIds.add(id)
    kept.slowRate = 40 * 1024
    expect((await viaA.json(`/api/youtube/videos/${id}/keep`, { maxHeight: 360 }, 'PUT')).status).toBe(202)
    let victim: ServerProcess | null = null
    for (let i = 0; i < 600 && !victim; i++) {
      victim = [a, b].find((p) => logged(p, 'job started', 'youtube.keepVideo')) ?? null
      if (!victim) await Bun.sleep(100)
    }
    expect(victim).not.toBeNull()
    // mid-download (the slow source gives about 40 KB/s), then the process is gone
    await Bun.sleep(3000)
    await victim!.stop('SIGKILL')
    kept.slowRate = 10 * 1024 * 1024
    const survivor = victim === a ? b : a
    const via = viaA.at(survivor.url)
    const video = await until206(via, `/api/youtube/videos/${id}/file`, 150_000)
    expect(video.headers.get('content-range')).toMatch(/^bytes 10-109\/\d+$/)
    expect((await keys('videos/')).filter((k) => k.endsWith(`[${id}].mp4`))).toHaveLength(1)
    expect(logged(survivor, 'job done', 'youtube.keepVideo')).toBe(true)
    kept.slowIds.clear()

    // the store stopped during a job: it waits, is not finished meanwhile; the file routes answer 503
    const wav = join(work, 'tone.wav')
    await s3.stop()
    let jobId = ''
    try {
      jobId = await createMusicJob(via, wav, { title: 'Waits' })
      const down = await via.request(`/api/youtube/videos/${id}/file`, { headers: { range: 'bytes=0-9' } })
      expect(down.status).toBe(503)
      expect(down.headers.get('retry-after')).toMatch(/^\d+$/)
      expect(await down.json()).toEqual({ detail: 'Storage is unavailable.' })
      const deadline = Date.now() + 8000
      while (Date.now() < deadline) {
        const row = (await listMusicJobs(via)).find((j) => j.id === jobId)
        expect(row?.completed ?? null).toBeNull()
        expect(row?.failed ?? null).toBeNull()
        await Bun.sleep(500)
      }
    } finally {
      await s3.start()
    }
    const [job] = await waitForMusicJobs(via, [jobId], 120_000)
    expect(job!.completed).not.toBeNull()
    expect((await via.request(job!.downloadUrl!, { headers: { range: 'bytes=0-9' } })).status).toBe(206)
    expect(s3.badSignatures).toBe(0)
  }, 400_000)
})
