import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import type { FakeYoutube } from '../../../scripts/fake-youtube.ts'
import type { Client } from '../../../tests/support/app.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../../../tests/support/fake-ytdlp.ts'
import { expectError } from '../../../tests/support/http.ts'
import { startKeptMedia, type KeptMedia } from '../../../tests/support/kept-media.ts'
import { startTestS3, type TestS3 } from '../../../tests/support/s3.ts'
import { createYoutubeTestApp, quickUser, startTestFake, type YoutubeTestApp } from '../../../tests/support/youtube.ts'
import { runCommand } from '../../admin/commands/index.ts'
import { parseEnv } from '../../env.ts'
import { createStorage } from '../../storage/index.ts'
import { S3Store } from '../../storage/s3.ts'
import { watchUrl } from '../listen/audio.ts'
import { youtubeChannels, youtubeVideos } from '../tables.ts'
import { youtubeKeptFiles } from './tables.ts'

// Kept videos with STORAGE=s3 against the test store (s3rver behind the SigV4 check): the
// layout lands in the bucket under `videos/`, KEEP_DIR holds passing work only, the file is
// served from the bucket with ranges (and presigned with S3_PRESIGN=on), the store stopped
// mid-fetch makes the fetch wait (never `ready` meanwhile), and the objects go with the keep.
setDefaultTimeout(120_000)

const PREFIX = 'keep-test/'
let fake: FakeYoutube
let media: KeptMedia
let ytdlp: FakeYtdlp
let s3: TestS3
let bucket: S3Store
let keepDir: string
let t: YoutubeTestApp
let a: { client: Client; id: string }
let kitchen: string[]

beforeAll(async () => {
  ;[fake, media, s3] = await Promise.all([startTestFake(), startKeptMedia(), startTestS3()])
  kitchen = [...fake.channel('@tiny-kitchen').uploads]
  ytdlp = startFakeYtdlp({ urls: Object.fromEntries(kitchen.map((id) => [watchUrl(id), `${media.url}/v/${id}.html`])) })
  keepDir = mkdtempSync(join(tmpdir(), 'tunefeed-keep-s3-'))
  bucket = new S3Store({ endpoint: s3.endpoint, bucket: s3.bucket, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, prefix: PREFIX, virtualHostedStyle: false })
  t = await createYoutubeTestApp(fake, {
    ...s3.env({ S3_PREFIX: PREFIX }),
    YTDLP_PATH: ytdlp.path,
    FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com',
    KEEP_DIR: keepDir,
    KEEP_MIN_FREE_MB: '0',
    YTDLP_SLEEP_SECONDS: '0',
  })
  a = await quickUser(t)
  expect((await a.client.put('/api/youtube/subscriptions/user?channel_id=@tiny-kitchen')).status).toBe(200)
  await t.jobs.drain()
}, 180_000)
afterAll(async () => {
  await t?.close()
  await media?.stop()
  await fake?.stop()
  ytdlp?.stop()
  await s3?.close()
  if (keepDir) rmSync(keepDir, { recursive: true, force: true })
})

async function keys(prefix = 'videos/'): Promise<string[]> {
  const out: string[] = []
  for await (const o of bucket.list(prefix)) out.push(o.key)
  return out.sort()
}
const onDisk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? onDisk(join(dir, e.name)).map((f) => `${e.name}/${f}`) : [e.name]))

async function kept(id: string) {
  return ((await (await a.client.get(`/api/youtube/videos/${id}`)).json()) as { kept: { state: string; sizeBytes: number | null } | null }).kept
}

async function storageCheck(): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = []
  const env = parseEnv({ ...process.env, DATA_DIR: t.ctx.env.DATA_DIR, KEEP_DIR: keepDir, LOG_LEVEL: 'silent', ...s3.env({ S3_PREFIX: PREFIX }) })
  const code = await runCommand(['storage', 'check'], { out: (l) => lines.push(l), err: (l) => lines.push(l) }, env, t.ctx)
  return { code, lines }
}

describe('kept videos with STORAGE=s3', () => {
  test('stored in the bucket in the layout, served with ranges and presigned, removed with the keep', async () => {
    const id = kitchen[0]!
    expect((await a.client.put(`/api/youtube/videos/${id}/keep`, { maxHeight: 360 })).status).toBe(202)
    await t.jobs.drain()
    const state = await kept(id)
    expect(state?.state).toBe('ready')

    const [row] = await t.ctx.db.select().from(youtubeKeptFiles).where(eq(youtubeKeptFiles.videoId, id))
    const [channel] = await t.ctx.db.select().from(youtubeChannels).where(eq(youtubeChannels.id, row!.channelId))
    const [video] = await t.ctx.db.select().from(youtubeVideos).where(eq(youtubeVideos.id, id))
    const show = `Tiny Kitchen [${channel!.id}]`
    const day = video!.publishedAt.toISOString().slice(0, 10)
    const base = `${show}/Season ${day.slice(0, 4)}/Tiny Kitchen - ${day} - ${video!.title.replace(/[/\\:*?"<>|]/g, '')} [${id}]`
    expect(await keys()).toEqual([`videos/${base}-thumb.jpg`, `videos/${base}.mp4`, `videos/${base}.nfo`, `videos/${show}/poster.jpg`, `videos/${show}/tvshow.nfo`].sort())
    // KEEP_DIR held passing work only, and none is left
    expect(onDisk(keepDir)).toEqual([])
    expect((await bucket.head(`videos/${base}.mp4`))?.type).toBe('video/mp4')
    expect((await bucket.head(`videos/${base}.mp4`))?.size).toBe(state!.sizeBytes!)
    const nfo = await new Response((await bucket.get(`videos/${base}.nfo`))!.body).text()
    expect(nfo).toContain(`<uniqueid type="youtube" default="true">${id}</uniqueid>`)

    // served from the bucket: ranges, HEAD, 416, the same bytes
    const stored = Buffer.from(await new Response((await bucket.get(`videos/${base}.mp4`))!.body).arrayBuffer())
    const url = `/api/youtube/videos/${id}/file` as const
    const part = await a.client.request(url, { headers: { range: 'bytes=100-1099' } })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-type')).toBe('video/mp4')
    expect(part.headers.get('content-range')).toBe(`bytes 100-1099/${stored.length}`)
    expect(Buffer.from(await part.arrayBuffer()).equals(stored.subarray(100, 1100))).toBe(true)
    const whole = await a.client.request(url)
    expect(whole.status).toBe(200)
    expect(Buffer.from(await whole.arrayBuffer()).equals(stored)).toBe(true)
    const head = await a.client.request(url, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-length')).toBe(String(stored.length))
    expect((await a.client.request(url, { headers: { range: `bytes=${stored.length}-` } })).status).toBe(416)
    // someone who does not keep it: 404, as if no file existed
    const other = await quickUser(t)
    await expectError(other.client.get(url), 404, 'Video not kept.')

    // S3_PRESIGN=on: 302 to the bucket, at most 300 s; HEAD passes through
    t.ctx.env.S3_PRESIGN = 'on'
    try {
      const res = await a.client.request(url)
      expect(res.status).toBe(302)
      const to = new URL(res.headers.get('location')!)
      expect(to.origin).toBe(s3.endpoint)
      expect(Number(to.searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(300)
      const direct = await fetch(to, { headers: { range: 'bytes=0-9' } })
      expect(direct.status).toBe(206)
      expect(Buffer.from(await direct.arrayBuffer()).equals(stored.subarray(0, 10))).toBe(true)
      expect((await a.client.request(url, { method: 'HEAD' })).status).toBe(200)
      await expectError(other.client.get(url), 404, 'Video not kept.')
    } finally {
      t.ctx.env.S3_PRESIGN = 'off'
    }

    // storage check: the database and the bucket agree
    const check = await storageCheck()
    expect(check.lines).toEqual(['storage check: no differences'])
    expect(check.code).toBe(0)

    // removed with the keep: the video, its .nfo and thumbnail leave the bucket
    expect((await a.client.delete(`/api/youtube/videos/${id}/keep`)).status).toBe(204)
    expect(await keys()).toEqual([`videos/${show}/poster.jpg`, `videos/${show}/tvshow.nfo`])
    await expectError(a.client.get(url), 404, 'Video not kept.')
    expect(s3.badSignatures).toBe(0)
  })

  test('the store stopped during a fetch: the fetch waits, is never ready meanwhile, the file route answers 503; back up, it is stored and served', async () => {
    const ready = kitchen[1]!
    expect((await a.client.put(`/api/youtube/videos/${ready}/keep`, { maxHeight: 360 })).status).toBe(202)
    await t.jobs.drain()
    expect((await kept(ready))?.state).toBe('ready')

    const id = kitchen[2]!
    await s3.stop()
    let drained: Promise<void> | null = null
    try {
      expect((await a.client.put(`/api/youtube/videos/${id}/keep`, { maxHeight: 360 })).status).toBe(202)
      drained = t.jobs.drain()
      const started = Date.now()
      const down = await a.client.request(`/api/youtube/videos/${ready}/file`, { headers: { range: 'bytes=0-9' } })
      expect(down.status).toBe(503)
      expect(down.headers.get('retry-after')).toMatch(/^\d+$/)
      expect(await down.json()).toEqual({ detail: 'Storage is unavailable.' })
      expect(Date.now() - started).toBeLessThan(30_000)
      // yt-dlp's file is complete in the work folder: the fetch now waits for the store
      const work = join(keepDir, '.work', id)
      for (let i = 0; i < 600 && !(existsSync(work) && readdirSync(work).some((f) => /^video\.(mp4|mkv|webm)$/.test(f))); i++) await Bun.sleep(100)
      expect(readdirSync(work).some((f) => /^video\.(mp4|mkv|webm)$/.test(f))).toBe(true)
      const until = Date.now() + 6000
      while (Date.now() < until) {
        expect(['queued', 'fetching']).toContain((await kept(id))?.state ?? 'none')
        await Bun.sleep(400)
      }
    } finally {
      await s3.start()
    }
    await drained
    expect((await kept(id))?.state).toBe('ready')
    const res = await a.client.request(`/api/youtube/videos/${id}/file`, { headers: { range: 'bytes=0-9' } })
    expect(res.status).toBe(206)
    expect((await keys()).filter((k) => k.endsWith(`[${id}].mp4`))).toHaveLength(1)
  })
})

describe('storage copy --to s3 with kept videos', () => {
  test('a local KEEP_DIR library is copied into the bucket under videos/, checked, and served after the switch', async () => {
    const localKeep = mkdtempSync(join(tmpdir(), 'tunefeed-keep-local-'))
    const s3Env = s3.env({ S3_PREFIX: 'moved/' })
    const local = await createYoutubeTestApp(fake, {
      ...s3Env,
      STORAGE: 'local',
      YTDLP_PATH: ytdlp.path,
      FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com',
      KEEP_DIR: localKeep,
      KEEP_MIN_FREE_MB: '0',
      YTDLP_SLEEP_SECONDS: '0',
    })
    try {
      const u = await quickUser(local)
      expect((await u.client.put('/api/youtube/subscriptions/user?channel_id=@tiny-kitchen')).status).toBe(200)
      await local.jobs.drain()
      const id = kitchen[5]!
      expect((await u.client.put(`/api/youtube/videos/${id}/keep`, { maxHeight: 360 })).status).toBe(202)
      await local.jobs.drain()
      const onDiskMp4 = onDisk(localKeep).find((f) => f.endsWith(`[${id}].mp4`))!
      expect(onDiskMp4).toBeDefined()
      const run = async (argv: string[], storage: 'local' | 's3') => {
        const lines: string[] = []
        const env = parseEnv({ ...process.env, DATA_DIR: local.ctx.env.DATA_DIR, KEEP_DIR: localKeep, LOG_LEVEL: 'silent', ...s3Env, STORAGE: storage })
        return { code: await runCommand(argv, { out: (l) => lines.push(l), err: (l) => lines.push(l) }, env, local.ctx), lines }
      }
      const localCheck = await run(['storage', 'check'], 'local')
      expect(localCheck.lines).toEqual(['storage check: no differences'])
      const copy = await run(['storage', 'copy', '--to', 's3'], 'local')
      expect(copy.code).toBe(0)
      const moved = new S3Store({ endpoint: s3.endpoint, bucket: s3.bucket, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, prefix: 'moved/', virtualHostedStyle: false })
      const copied: string[] = []
      for await (const o of moved.list('videos/')) copied.push(o.key)
      // the whole layout: the video, its .nfo and thumbnail, the show's tvshow.nfo and poster
      expect(copied.sort()).toEqual(onDisk(localKeep).map((f) => `videos/${f}`).sort())
      expect((await run(['storage', 'check'], 's3')).code).toBe(0)
      // the switch: the same app on the bucket serves the same bytes
      const before = await (await u.client.request(`/api/youtube/videos/${id}/file`)).arrayBuffer()
      local.ctx.storage = createStorage(parseEnv({ DATA_DIR: local.ctx.env.DATA_DIR, KEEP_DIR: localKeep, ...s3Env }))
      rmSync(join(localKeep, onDiskMp4))
      const after = await u.client.request(`/api/youtube/videos/${id}/file`, { headers: { range: 'bytes=0-' } })
      expect(after.status).toBe(206)
      expect(Buffer.from(await after.arrayBuffer()).equals(Buffer.from(before))).toBe(true)
    } finally {
      await local.close()
      rmSync(localKeep, { recursive: true, force: true })
    }
  })
})
