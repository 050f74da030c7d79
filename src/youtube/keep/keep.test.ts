import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { eq } from 'drizzle-orm'
import { XMLParser } from 'fast-xml-parser'
import type { FakeYoutube } from '../../../scripts/fake-youtube.ts'
import type { Client } from '../../../tests/support/app.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../../../tests/support/fake-ytdlp.ts'
import { expectError } from '../../../tests/support/http.ts'
import { startKeptMedia, startMediaServerStandIn, type KeptMedia } from '../../../tests/support/kept-media.ts'
import { createYoutubeTestApp, quickUser, startTestFake, type YoutubeTestApp } from '../../../tests/support/youtube.ts'
import { watchUrl } from '../listen/audio.ts'
import { youtubeChannels, youtubeVideos } from '../tables.ts'

// Keeping videos against real parts: the fake YouTube's channels, Debian's yt-dlp (behind the
// stand-in that maps watch URLs to loopback pages) choosing among real MP4s by height, ffmpeg
// merging, and a Jellyfin stand-in. Jobs run inline (drain), as the queue would run them.
setDefaultTimeout(120_000)

let fake: FakeYoutube
let media: KeptMedia
let ytdlp: FakeYtdlp
let jellyfin: ReturnType<typeof startMediaServerStandIn>
let keepDir: string
let kitchen: string[]
let arcade: string[]

beforeAll(async () => {
  ;[fake, media] = await Promise.all([startTestFake(), startKeptMedia()])
  jellyfin = startMediaServerStandIn()
  kitchen = [...fake.channel('@tiny-kitchen').uploads]
  arcade = [...fake.channel('@pixel-arcade').uploads]
  const urls = Object.fromEntries([...kitchen, ...arcade].map((id) => [watchUrl(id), `${media.url}/v/${id}.html`]))
  ytdlp = startFakeYtdlp({ urls })
  keepDir = mkdtempSync(join(tmpdir(), 'tunefeed-keep-'))
}, 120_000)
afterAll(async () => {
  await media?.stop()
  await fake?.stop()
  await jellyfin?.stop()
  ytdlp?.stop()
  if (keepDir) rmSync(keepDir, { recursive: true, force: true })
})

type Kept = { state: string; maxHeight: number; height: number | null; sizeBytes: number | null; pinned: boolean; error: string | null; errorKind: string | null }
type Video = { id: string; kept: Kept | null; title: string }

const xml = new XMLParser({ ignoreAttributes: false, parseTagValue: false, processEntities: true })
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)).map((f) => `${e.name}/${f}`) : [e.name]))
const libraryFiles = () => files(keepDir).filter((f) => !f.startsWith('.work/'))
const ytdlpDownloads = () => ytdlp.calls().filter((a) => a.includes('--embed-thumbnail'))

async function video(c: Client, id: string): Promise<Video> {
  const res = await c.get(`/api/youtube/videos/${id}`)
  expect(res.status).toBe(200)
  return (await res.json()) as Video
}

async function ffprobeHeight(path: string): Promise<number> {
  const p = Bun.spawnSync(['ffprobe', '-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=height,codec_name', '-of', 'json', path])
  return JSON.parse(p.stdout.toString()).streams[0].height
}

describe('keeping videos', () => {
  let t: YoutubeTestApp
  let a: { client: Client; id: string }
  let b: { client: Client; id: string }
  let admin: { client: Client; id: string }
  beforeAll(async () => {
    t = await createYoutubeTestApp(fake, {
      YTDLP_PATH: ytdlp.path,
      FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com',
      KEEP_DIR: keepDir,
      KEEP_MIN_FREE_MB: '0',
      YTDLP_SLEEP_SECONDS: '0',
      JELLYFIN_URL: jellyfin.url,
      JELLYFIN_API_KEY: 'jelly-key',
    })
    a = await quickUser(t)
    b = await quickUser(t)
    admin = await quickUser(t, { admin: true })
    for (const u of [a, b]) expect((await u.client.put('/api/youtube/subscriptions/user?channel_id=@tiny-kitchen')).status).toBe(200)
    await t.jobs.drain()
  }, 120_000)
  afterAll(() => t?.close())

  test('done when: Keep with N = 5 lands five files with NFOs; watched with D = 0 removes one unless liked; a second keeper adds no file; Jellyfin told', async () => {
    const channelId = fake.channel('@tiny-kitchen').id
    // settings: defaults, validation, follow required
    expect(await (await a.client.get(`/api/youtube/channels/${channelId}/keep`)).json()).toEqual({ enabled: false, keepLast: 20, maxHeight: 1080, deleteWatchedAfterDays: null, includeShorts: false })
    await expectError(a.client.put(`/api/youtube/channels/${channelId}/keep`, { enabled: true, keepLast: 501 }), 422, /keepLast/)
    await expectError(a.client.put(`/api/youtube/channels/${channelId}/keep`, { enabled: true, maxHeight: 700 }), 422, /maxHeight/)
    await expectError(a.client.put(`/api/youtube/channels/${fake.channel('@star-lab').id}/keep`, { enabled: true }), 404, 'Subscription not found.')

    const rule = { enabled: true, keepLast: 5, maxHeight: 360, deleteWatchedAfterDays: 0, includeShorts: false }
    const put = await a.client.put(`/api/youtube/channels/${channelId}/keep`, rule)
    expect(put.status).toBe(200)
    expect(await put.json()).toEqual(rule)
    const newest = kitchen.slice(0, 5)
    expect((await video(a.client, newest[0]!)).kept?.state).toBe('queued')
    await t.jobs.drain()
    expect(ytdlpDownloads()).toHaveLength(5)

    for (const id of newest) {
      const v = await video(a.client, id)
      expect(v.kept).toEqual({ state: 'ready', maxHeight: 360, height: 360, sizeBytes: expect.any(Number), pinned: false, error: null, errorKind: null })
    }
    expect((await video(a.client, kitchen[5]!)).kept).toBeNull()

    // the layout, read as a media server would
    const lib = libraryFiles()
    const show = `Tiny Kitchen [${channelId}]`
    expect(lib).toContain(`${show}/tvshow.nfo`)
    expect(lib).toContain(`${show}/poster.jpg`)
    const mp4s = lib.filter((f) => f.endsWith('.mp4'))
    expect(mp4s).toHaveLength(5)
    const episodes = new Set<string>()
    for (const id of newest) {
      const [row] = await t.ctx.db.select().from(youtubeVideos).where(eq(youtubeVideos.id, id))
      const day = row!.publishedAt.toISOString().slice(0, 10)
      const base = `${show}/Season ${day.slice(0, 4)}/Tiny Kitchen - ${day} - ${row!.title.replace(/[/\\:*?"<>|]/g, '')} [${id}]`
      expect(lib).toContain(`${base}.mp4`)
      expect(lib).toContain(`${base}.nfo`)
      expect(lib).toContain(`${base}-thumb.jpg`)
      expect(await ffprobeHeight(join(keepDir, `${base}.mp4`))).toBe(360)
      const nfo = readFileSync(join(keepDir, `${base}.nfo`), 'utf8')
      expect(nfo).not.toContain('<!DOCTYPE')
      const ep = xml.parse(nfo).episodedetails
      expect(ep.title).toBe(row!.title)
      expect(ep.showtitle).toBe('Tiny Kitchen')
      expect(ep.aired).toBe(day)
      expect(ep.season).toBe(day.slice(0, 4))
      expect(Number(ep.runtime)).toBeGreaterThanOrEqual(1)
      expect(ep.uniqueid).toEqual({ '#text': id, '@_type': 'youtube', '@_default': 'true' })
      const d = row!.publishedAt
      expect(Math.floor(Number(ep.episode) / 100)).toBe((d.getUTCMonth() + 1) * 100 + d.getUTCDate())
      episodes.add(`${ep.season}/${ep.episode}`)
    }
    expect(episodes.size).toBe(5)
    const tvshow = xml.parse(readFileSync(join(keepDir, show, 'tvshow.nfo'), 'utf8')).tvshow
    expect(tvshow.title).toBe('Tiny Kitchen')
    expect(tvshow.uniqueid['#text']).toBe(channelId)

    // the file: byte ranges for a keeper, 404 for anyone else
    const file = await a.client.request(`/api/youtube/videos/${newest[0]}/file`, { headers: { range: 'bytes=0-99' } })
    expect(file.status).toBe(206)
    expect(file.headers.get('content-type')).toBe('video/mp4')
    expect(file.headers.get('content-range')).toMatch(/^bytes 0-99\/\d+$/)
    expect((await file.arrayBuffer()).byteLength).toBe(100)
    expect((await a.client.request(`/api/youtube/videos/${newest[0]}/file`, { method: 'HEAD' })).status).toBe(200)
    await expectError(b.client.get(`/api/youtube/videos/${newest[0]}/file`), 404, 'Video not kept.')

    // watched with D = 0: removed at once, unless liked
    expect((await a.client.put(`/api/youtube/videos/${newest[1]}/like`)).status).toBe(200)
    for (const id of [newest[0]!, newest[1]!]) expect((await a.client.put(`/api/youtube/videos/${id}/watch`)).status).toBe(200)
    await t.jobs.drain()
    expect((await video(a.client, newest[0]!)).kept).toBeNull()
    expect((await video(a.client, newest[1]!)).kept?.state).toBe('ready')
    expect(libraryFiles().filter((f) => f.endsWith('.mp4'))).toHaveLength(4)
    expect(libraryFiles().some((f) => f.includes(`[${newest[0]}]`))).toBe(false)
    await expectError(a.client.get(`/api/youtube/videos/${newest[0]}/file`), 404, 'Video not kept.')
    // removed: never fetched again by the rule, and the rule does not reach further back
    await a.client.put(`/api/youtube/channels/${channelId}/keep`, rule)
    await t.jobs.drain()
    expect((await video(a.client, newest[0]!)).kept).toBeNull()
    expect((await video(a.client, kitchen[5]!)).kept).toBeNull()
    expect(ytdlpDownloads()).toHaveLength(5)

    // a second person keeping one of them: no new file, no new fetch
    const before = ytdlpDownloads().length
    const kept = await b.client.put(`/api/youtube/videos/${newest[2]}/keep`, { maxHeight: 360 })
    expect(kept.status).toBe(202)
    expect(await kept.json()).toEqual({ state: 'ready' })
    await t.jobs.drain()
    expect(ytdlpDownloads()).toHaveLength(before)
    expect(libraryFiles().filter((f) => f.endsWith('.mp4'))).toHaveLength(4)
    expect((await video(b.client, newest[2]!)).kept).toMatchObject({ state: 'ready', pinned: true })
    expect((await b.client.get(`/api/youtube/videos/${newest[2]}/file`)).status).toBe(200)

    // a larger height asked: fetched again, still one file, at the largest height
    expect((await b.client.put(`/api/youtube/videos/${newest[2]}/keep`, { maxHeight: 480 })).status).toBe(202)
    await t.jobs.drain()
    expect(ytdlpDownloads()).toHaveLength(before + 1)
    const both = libraryFiles().filter((f) => f.includes(`[${newest[2]}]`) && f.endsWith('.mp4'))
    expect(both).toHaveLength(1)
    expect(await ffprobeHeight(join(keepDir, both[0]!))).toBe(480)
    expect((await video(a.client, newest[2]!)).kept).toMatchObject({ maxHeight: 360, height: 480 })

    // B removes it: A still keeps it; the file stays
    expect((await b.client.delete(`/api/youtube/videos/${newest[2]}/keep`)).status).toBe(204)
    await expectError(b.client.get(`/api/youtube/videos/${newest[2]}/file`), 404, 'Video not kept.')
    expect((await a.client.get(`/api/youtube/videos/${newest[2]}/file`)).status).toBe(200)

    // the Kept list
    const list = (await (await a.client.get('/api/youtube/kept?per_page=2')).json()) as { videos: Video[]; totalPages: number; usedBytes: number; quotaBytes: number | null }
    expect(list.totalPages).toBe(2)
    expect(list.videos.map((v) => v.id)).toEqual([newest[1], newest[2]])
    expect(list.quotaBytes).toBeNull()
    const sizes = await Promise.all(newest.slice(1).map(async (id) => (await video(a.client, id)).kept!.sizeBytes!))
    expect(list.usedBytes).toBe(sizes.reduce((x, y) => x + y, 0))

    // Jellyfin told, with its header, at most once a minute
    for (let i = 0; i < 50 && !jellyfin.calls.length; i++) await Bun.sleep(20)
    expect(jellyfin.calls.length).toBeGreaterThanOrEqual(1)
    for (const call of jellyfin.calls) expect(call).toEqual({ method: 'POST', path: '/Library/Refresh', headers: expect.objectContaining({ authorization: 'MediaBrowser Token="jelly-key"' }), at: expect.any(Number) })
    // many changes, at most one call a minute (a slow run may see the minute's second call)
    for (let i = 1; i < jellyfin.calls.length; i++) expect(jellyfin.calls[i]!.at - jellyfin.calls[i - 1]!.at).toBeGreaterThanOrEqual(59_000)
    const status = (await (await admin.client.get('/api/admin/status')).json()) as { mediaServers: unknown[]; disk: { keep: { low: boolean } } }
    expect(status.mediaServers).toEqual([{ kind: 'jellyfin', url: jellyfin.url, ok: true, notifiedAt: expect.any(String), lastError: null }])
    expect(JSON.stringify(status)).not.toContain('jelly-key')
    expect(status.disk.keep.low).toBe(false)
  })

  test('quota: a fetch that would pass it, and a stored file that would, fail with errorKind quota; the admin list shows the usage', async () => {
    const c = await quickUser(t)
    await expectError(admin.client.request(`/api/admin/users/${c.id}`, { method: 'PATCH', json: { keepQuotaMb: 0 } }), 422, /keepQuotaMb/)
    const patched = await admin.client.request(`/api/admin/users/${c.id}`, { method: 'PATCH', json: { keepQuotaMb: 1 } })
    expect(patched.status).toBe(200)
    expect(await patched.json()).toMatchObject({ keepQuotaMb: 1, keepUsedBytes: 0 })
    // 480p is 3.7 MB: larger than the 1 MB left
    expect((await c.client.put(`/api/youtube/videos/${kitchen[8]}/keep`, { maxHeight: 480 })).status).toBe(202)
    await t.jobs.drain()
    const big = (await video(c.client, kitchen[8]!)).kept!
    expect(big).toMatchObject({ state: 'failed', errorKind: 'quota' })
    expect(big.error).toMatch(/space for kept videos/)
    expect(libraryFiles().some((f) => f.includes(`[${kitchen[8]}]`))).toBe(false)
    // 360p (0.9 MB) fits; a second one no longer does (already stored for A: no fetch, still refused)
    expect((await c.client.put(`/api/youtube/videos/${kitchen[9]}/keep`, { maxHeight: 360 })).status).toBe(202)
    await t.jobs.drain()
    expect((await video(c.client, kitchen[9]!)).kept?.state).toBe('ready')
    expect((await c.client.put(`/api/youtube/videos/${kitchen[3]}/keep`, { maxHeight: 360 })).status).toBe(202)
    expect((await video(c.client, kitchen[3]!)).kept).toMatchObject({ state: 'failed', errorKind: 'quota' })
    await expectError(c.client.get(`/api/youtube/videos/${kitchen[3]}/file`), 404, 'Video not kept.')
    const users = (await (await admin.client.get('/api/admin/users?per_page=100')).json()) as { users: { id: string; keepQuotaMb: number | null; keepUsedBytes: number }[] }
    const row = users.users.find((u) => u.id === c.id)!
    expect(row.keepQuotaMb).toBe(1)
    expect(row.keepUsedBytes).toBe((await video(c.client, kitchen[9]!)).kept!.sizeBytes!)
    const kept = (await (await c.client.get('/api/youtube/kept')).json()) as { usedBytes: number; quotaBytes: number }
    expect(kept).toMatchObject({ usedBytes: row.keepUsedBytes, quotaBytes: 1024 * 1024 })
    expect((await admin.client.request(`/api/admin/users/${c.id}`, { method: 'PATCH', json: { keepQuotaMb: null } })).status).toBe(200)
  })

  test('a hostile channel title stays inside KEEP_DIR; NFO text is escaped; live and upcoming are never kept', async () => {
    const d = await quickUser(t)
    const channelId = fake.channel('@pixel-arcade').id
    expect((await d.client.put('/api/youtube/subscriptions/user?channel_id=@pixel-arcade')).status).toBe(200)
    await t.jobs.drain()
    await t.ctx.db.update(youtubeChannels).set({ title: '../..' }).where(eq(youtubeChannels.id, channelId))
    const hostile = `<b>&"'</b> ../../etc/passwd \\ : * ? | ${'é'.repeat(150)}`
    await t.ctx.db.update(youtubeVideos).set({ title: hostile }).where(eq(youtubeVideos.id, arcade[0]!))
    expect((await d.client.put(`/api/youtube/channels/${channelId}/keep`, { enabled: true, keepLast: 4, maxHeight: 360 })).status).toBe(200)
    await t.jobs.drain()
    const kinds = await t.ctx.db.select({ id: youtubeVideos.id, kind: youtubeVideos.kind }).from(youtubeVideos).where(eq(youtubeVideos.channelId, channelId))
    for (const id of arcade.slice(0, 4)) {
      const kind = kinds.find((k) => k.id === id)!.kind
      const v = await video(d.client, id)
      if (kind === 'live' || kind === 'upcoming') expect(v.kept).toBeNull()
      else expect(v.kept?.state).toBe('ready')
    }
    const lib = libraryFiles()
    const show = `[${channelId}]`
    expect(lib).toContain(`${show}/tvshow.nfo`)
    const mine = lib.filter((f) => f.startsWith(`${show}/`))
    for (const f of mine) {
      expect(resolve(keepDir, f).startsWith(`${resolve(keepDir)}/`)).toBe(true)
      for (const part of f.split('/')) {
        expect(Buffer.byteLength(part.replace(/(\.mp4|\.nfo|-thumb\.jpg)$/, ''))).toBeLessThanOrEqual(200)
        expect(part).not.toMatch(/^\.|[\\:*?"<>|]/)
      }
    }
    const hostileNfo = mine.find((f) => f.includes(`[${arcade[0]}].nfo`))!
    expect(hostileNfo).toBeDefined()
    const text = readFileSync(join(keepDir, hostileNfo), 'utf8')
    expect(text).not.toContain('<b>')
    expect(xml.parse(text).episodedetails.title).toBe(hostile)
    expect(relative(keepDir, join(keepDir, hostileNfo)).startsWith('..')).toBe(false)
    // nothing written outside KEEP_DIR's own tree
    expect(existsSync(join(keepDir, '..', 'tvshow.nfo'))).toBe(false)
    expect(statSync(keepDir).isDirectory()).toBe(true)
  })
})

describe('a fetch stopped mid-way', () => {
  test('leaves no file in the library, keeps its partial download, and completes when run again', async () => {
    const t = await createYoutubeTestApp(fake, {
      YTDLP_PATH: ytdlp.path,
      FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com',
      KEEP_DIR: join(keepDir, 'stopped'),
      KEEP_MIN_FREE_MB: '0',
      YTDLP_SLEEP_SECONDS: '0',
    })
    try {
      const u = await quickUser(t)
      expect((await u.client.put('/api/youtube/subscriptions/user?channel_id=@tiny-kitchen')).status).toBe(200)
      await t.jobs.drain()
      const id = kitchen[10]!
      media.slowIds.add(id)
      media.slowRate = 100 * 1024
      expect((await u.client.put(`/api/youtube/videos/${id}/keep`, { maxHeight: 360 })).status).toBe(202)
      const job = t.jobs.waiting.find((j) => j.def.name === 'youtube.keepVideo')!
      t.jobs.waiting = t.jobs.waiting.filter((j) => j !== job)
      const stop = new AbortController()
      const run = job.def.run(t.ctx, job.payload, { id: job.id, attempt: 1, attempts: 3, signal: stop.signal, progress: async () => {} })
      const work = join(keepDir, 'stopped', '.work', id)
      let part: string | undefined
      for (let i = 0; i < 400 && !part; i++) {
        await Bun.sleep(50)
        part = existsSync(work) ? readdirSync(work).find((f) => f.endsWith('.part') && statSync(join(work, f)).size > 50_000) : undefined
      }
      expect(part).toBeDefined()
      stop.abort()
      await expect(run).rejects.toThrow()
      const partial = statSync(join(work, part!)).size
      expect(partial).toBeLessThan(media.sizes[360]!)
      expect(files(join(keepDir, 'stopped')).filter((f) => !f.startsWith('.work/'))).toEqual([])
      expect((await video(u.client, id)).kept?.state).toBe('fetching')
      await expectError(u.client.get(`/api/youtube/videos/${id}/file`), 404, 'Video not kept.')
      // run again (as the queue does after a crash): yt-dlp continues, the file lands complete
      media.slowRate = 10 * 1024 * 1024
      await job.def.run(t.ctx, job.payload, { id: job.id, attempt: 2, attempts: 3, signal: new AbortController().signal, progress: async () => {} })
      const v = await video(u.client, id)
      expect(v.kept?.state).toBe('ready')
      const mp4 = files(join(keepDir, 'stopped')).filter((f) => f.endsWith('.mp4') && !f.startsWith('.work/'))
      expect(mp4).toHaveLength(1)
      expect(await ffprobeHeight(join(keepDir, 'stopped', mp4[0]!))).toBe(360)
      expect(existsSync(work)).toBe(false)
    } finally {
      media.slowIds.clear()
      await t.close()
    }
  })
})
