#!/usr/bin/env bun
/**
 * Storage benchmark (a benchmark, not a test): the app on STORAGE=s3 against the test store on
 * loopback (s3rver behind the SigV4 check, tests/support/s3.ts), every ratio against a baseline
 * taken in the same run:
 *
 *  1. a kept video fetched for real (the fake YouTube, Debian's yt-dlp behind its stand-in, the
 *     job run as the queue runs it): the requests the store saw while the job finished, counted
 *     at the proxy: uploads (PUT, or a multipart upload) of the video, and reads of it (none: no
 *     read-back).
 *  2. (2 and 3 against the test store run as a process of its own, the app switched to it)
 *     first byte of a 64 KiB range request through the app (GET /api/youtube/videos/{id}/file,
 *     the app served on a real port) vs the same range read directly from the store with the
 *     same client (Bun.S3Client through src/storage/s3.ts); median of --runs each, alternated.
 *  3. a --mb MB kept file (the same key, overwritten with that many bytes) streamed whole through
 *     the app vs straight from the store (MB/s, median of 3).
 *
 *   bun scripts/bench/storage.ts [--runs 30] [--mb 100]
 *
 * Goals (issue 34): at most one upload of the file per finished job; first byte through the
 * app ≤ 1.5× direct; streaming ≥ 0.8× the store's own.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { eq } from 'drizzle-orm'
import { createApp } from '../../src/app.ts'
import { setLogLevel } from '../../src/lib/logger.ts'
import { parseEnv } from '../../src/env.ts'
import { createStorage } from '../../src/storage/index.ts'
import { S3Store } from '../../src/storage/s3.ts'
import { keptKey } from '../../src/youtube/keep/files.ts'
import { youtubeKeptFiles } from '../../src/youtube/keep/tables.ts'
import { watchUrl } from '../../src/youtube/listen/audio.ts'
import { startFakeYtdlp } from '../../tests/support/fake-ytdlp.ts'
import { startKeptMedia } from '../../tests/support/kept-media.ts'
import { startTestS3 } from '../../tests/support/s3.ts'
import { createYoutubeTestApp, quickUser, startTestFake } from '../../tests/support/youtube.ts'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '30' }, mb: { type: 'string', default: '100' } } })
const runs = Number(values.runs)
const size = Number(values.mb) * 1024 * 1024
setLogLevel('silent')

const PREFIX = 'bench/'
const [s3, fake, media] = await Promise.all([startTestS3(), startTestFake(), startKeptMedia()])
const kitchen = [...fake.channel('@tiny-kitchen').uploads]
const ytdlp = startFakeYtdlp({ urls: Object.fromEntries(kitchen.map((id) => [watchUrl(id), `${media.url}/v/${id}.html`])) })
const keepDir = mkdtempSync(join(tmpdir(), 'tunefeed-bench-keep-'))
const t = await createYoutubeTestApp(fake, {
  ...s3.env({ S3_PREFIX: PREFIX }),
  YTDLP_PATH: ytdlp.path,
  FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com',
  KEEP_DIR: keepDir,
  KEEP_MIN_FREE_MB: '0',
  YTDLP_SLEEP_SECONDS: '0',
})
const { client } = await quickUser(t)
await client.put('/api/youtube/subscriptions/user?channel_id=@tiny-kitchen')
await t.jobs.drain()

// 1. one kept video fetched and stored: what the store saw meanwhile
const videoId = kitchen[0]!
const seen = s3.requests.length
await client.put(`/api/youtube/videos/${videoId}/keep`, { maxHeight: 360 })
await t.jobs.drain()
const [row] = await t.ctx.db.select().from(youtubeKeptFiles).where(eq(youtubeKeptFiles.videoId, videoId))
if (row?.state !== 'ready' || !row.file) throw new Error(`the kept video is ${row?.state}: ${row?.error}`)
const key = keptKey(row.file)
const during = s3.requests.slice(seen)
const objectPath = `/${s3.bucket}/${PREFIX}${key}`
const isVideo = (r: { path: string }) => decodeURIComponent(r.path) === objectPath
const uploads = during.filter((r) => isVideo(r) && ((r.method === 'PUT' && !/partNumber=/.test(r.search)) || (r.method === 'POST' && /(^|&)uploads(=|&|$)/.test(r.search))))
const readBack = during.filter((r) => isVideo(r) && r.method === 'GET')
const puts = during.filter((r) => r.method === 'PUT').length

// 2 and 3: the same key, now --mb MB, in the test store run as a process of its own (so that the
// store does not share this process's event loop with the client and the app), the app switched to it
const child = Bun.spawn([process.execPath, join(import.meta.dir, '../../tests/support/s3-process.ts')], { stdout: 'pipe', stderr: 'inherit' })
const first = (await child.stdout.getReader().read()).value
const remote = JSON.parse(new TextDecoder().decode(first).split('\n')[0]!) as { endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string }
const remoteEnv = { STORAGE: 's3', S3_ENDPOINT: remote.endpoint, S3_BUCKET: remote.bucket, S3_REGION: remote.region, S3_ACCESS_KEY_ID: remote.accessKeyId, S3_SECRET_ACCESS_KEY: remote.secretAccessKey, S3_PREFIX: PREFIX }
t.ctx.storage = createStorage(parseEnv({ DATA_DIR: t.ctx.env.DATA_DIR, KEEP_DIR: keepDir, ...remoteEnv }))
const store = new S3Store({ ...remote, prefix: PREFIX, virtualHostedStyle: false })
const bytes = new Uint8Array(size)
for (let i = 0; i < size; i += 4096) bytes[i] = i & 0xff
await store.put(key, bytes, { type: 'video/mp4' })

const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: createApp(t.ctx).fetch, idleTimeout: 120 })
const url = `http://127.0.0.1:${server.port}/api/youtube/videos/${videoId}/file`
const cookie = client.cookie!
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

async function firstByteApp(start: number): Promise<number> {
  const t0 = performance.now()
  const res = await fetch(url, { headers: { cookie, range: `bytes=${start}-${start + 65535}` } })
  const reader = res.body!.getReader()
  await reader.read()
  const ms = performance.now() - t0
  await reader.cancel()
  if (res.status !== 206) throw new Error(`app answered ${res.status}`)
  return ms
}

async function firstByteDirect(start: number): Promise<number> {
  const t0 = performance.now()
  const got = await store.get(key, { start, end: start + 65535 })
  const reader = got!.body.getReader()
  await reader.read()
  const ms = performance.now() - t0
  await reader.cancel()
  return ms
}

async function streamed(read: () => Promise<ReadableStream<Uint8Array>>): Promise<number> {
  const t0 = performance.now()
  let n = 0
  for await (const chunk of await read()) n += chunk.length
  if (n !== size) throw new Error(`read ${n} of ${size} bytes`)
  return size / 1024 ** 2 / ((performance.now() - t0) / 1000)
}

// warm both paths, then alternate so both see the same machine load
await firstByteApp(0)
await firstByteDirect(0)
const app: number[] = []
const direct: number[] = []
for (let i = 0; i < runs; i++) {
  const start = Math.floor(Math.random() * (size - 65536))
  direct.push(await firstByteDirect(start))
  app.push(await firstByteApp(start))
}
const appMbs: number[] = []
const directMbs: number[] = []
for (let i = 0; i < 3; i++) {
  directMbs.push(await streamed(async () => (await store.get(key))!.body))
  appMbs.push(await streamed(async () => (await fetch(url, { headers: { cookie } })).body!))
}
const fb = median(app) / median(direct)
const tp = median(appMbs) / median(directMbs)
console.log(
  `a kept video stored (${row.size} bytes): ${uploads.length} upload(s) of its file, ${readBack.length} read(s) of it back; ${puts} PUTs in all (the video, its .nfo and thumbnail, the show's tvshow.nfo and poster) (goal: at most one upload)`,
)
console.log(`first byte of a 64 KiB range of a kept file (median of ${runs}): app ${median(app).toFixed(2)} ms, store ${median(direct).toFixed(2)} ms, ratio ${fb.toFixed(2)} (goal ≤ 1.5)`)
console.log(`${values.mb} MB kept file streamed (median of 3): app ${median(appMbs).toFixed(0)} MB/s, store ${median(directMbs).toFixed(0)} MB/s, ratio ${tp.toFixed(2)} (goal ≥ 0.8)`)
console.log(`bad signatures seen by the stores: ${s3.badSignatures} (the in-process one); load average ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}`)
server.stop(true)
await t.close()
ytdlp.stop()
await Promise.all([media.stop(), fake.stop()])
await s3.close()
child.kill('SIGTERM')
await child.exited
rmSync(keepDir, { recursive: true, force: true })
process.exit(0)
