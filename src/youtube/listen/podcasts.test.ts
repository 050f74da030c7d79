import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { XMLParser } from 'fast-xml-parser'
import type { FakeYoutube } from '../../../scripts/fake-youtube.ts'
import { Client } from '../../../tests/support/app.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../../../tests/support/fake-ytdlp.ts'
import { expectError } from '../../../tests/support/http.ts'
import { makeTone, startMediaServer, type MediaServer } from '../../../tests/support/media.ts'
import { startMusicServices, type MusicServices } from '../../../tests/support/music-services.ts'
import { createYoutubeTestApp, quickUser, startTestFake, type YoutubeTestApp } from '../../../tests/support/youtube.ts'
import { rowsOf } from '../../db/rows.ts'
import { probeMedia } from '../../tools/ffmpeg.ts'
import { enforceAudioCache, watchUrl } from './audio.ts'
import { episodeDir, personEpisodeBytes } from './episode-queries.ts'
import { podcastEpisodesJob, RECUT_DELAY_MS } from './jobs.ts'

// A followed channel as a private podcast: its newest videos' audio (the stand-in yt-dlp maps
// their watch URLs to a 12 s tone on the loopback media server) with the user's skip
// categories cut out (SponsorBlock stand-in, asked by hash prefix), feeds read without a cookie.
setDefaultTimeout(60_000)

const TONE_SECONDS = 12
/** A video published after the app took the channel's uploads (an upload the hourly job finds). */
const FRESH = 'freshUpload'

let fake: FakeYoutube
let media: MediaServer
let sb: MusicServices
let ytdlp: FakeYtdlp
let dir: string
let t: YoutubeTestApp
let a: Awaited<ReturnType<typeof quickUser>>
let b: Awaited<ReturnType<typeof quickUser>>
let channelId: string
/** The channel's plain videos, newest first (its second upload is a Short). */
let plain: string[]

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tunefeed-podcasts-'))
  const tone = join(dir, 'tone.mp3')
  ;[fake, media, sb] = await Promise.all([startTestFake(), startMediaServer(), startMusicServices(), makeTone(tone, TONE_SECONDS)])
  media.addFile('tone.mp3', tone)
  const channel = fake.channel('@star-lab')
  channelId = channel.id
  plain = channel.uploads.filter((id) => fake.videos.get(id)!.kind === 'video')
  expect(fake.videos.get(channel.uploads[1]!)!.kind).toBe('short')
  // a sponsor read 2-6 s into the newest video, an intro (not skipped by default) in the next
  sb.segments.set(plain[0]!, [{ category: 'sponsor', segment: [2, 6] }])
  sb.segments.set(plain[1]!, [{ category: 'intro', segment: [0, 3] }])
  const urls = Object.fromEntries([...channel.uploads, FRESH].map((id) => [watchUrl(id), `${media.url}/files/tone.mp3`]))
  ytdlp = startFakeYtdlp({ urls })
  t = await createYoutubeTestApp(fake, { YTDLP_PATH: ytdlp.path, SPONSORBLOCK_URL: sb.sbUrl, FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com' })
  a = await quickUser(t)
  b = await quickUser(t)
  for (const u of [a, b]) expect((await u.client.put('/api/youtube/subscriptions/user?channel_id=@star-lab')).status).toBe(200)
  await t.jobs.drain()
  // the fake's thumbnails are SVG: a JPEG from the media server stands in for YouTube's
  await t.ctx.db.execute(sql`update youtube_channels set thumbnail = ${`${media.url}/cover.jpg`} where id = ${channelId}`)
  // B skips nothing
  expect((await b.client.put('/api/youtube/sponsorblock', { categories: { sponsor: 'show', selfpromo: 'off', interaction: 'off' } })).status).toBe(200)
}, 60_000)
afterAll(async () => {
  await t?.close()
  await media?.stop()
  await sb?.stop()
  await fake?.stop()
  ytdlp?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

type Podcasts = { feeds: { channelId: string; title: string; url: string; episodes: number; keepLast: number; ready: number; fetching: number; failed: number; problem: string | null }[]; allUrl: string; opmlUrl: string }
const podcasts = async (c: Client): Promise<Podcasts> => {
  const res = await c.get('/api/youtube/podcasts')
  expect(res.status).toBe(200)
  return res.json()
}
/** A feed address fetched as a podcast app would: no cookie. */
const anon = () => new Client(t)
const path = (url: string) => new URL(url).pathname
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' })
// biome-ignore lint/suspicious/noExplicitAny: parsed XML walked freely by a test
type Item = Record<string, any>
const items = async (url: string): Promise<Item[]> => {
  const res = await anon().request(path(url))
  expect(res.status).toBe(200)
  const list = parser.parse(await res.text()).rss.channel.item ?? []
  return Array.isArray(list) ? list : [list]
}
const seconds = (d: string) => d.split(':').reduce((s, p) => s * 60 + Number(p), 0)
const runHourly = () => podcastEpisodesJob.run(t.ctx, {}, { id: 'hourly', attempt: 1, attempts: 1, signal: new AbortController().signal, progress: async () => {} })

test('switch input: 404 for a channel not followed, 422 naming the field', async () => {
  await expectError(a.client.put('/api/youtube/channels/UCxxxxxxxxxxxxxxxxxxxxxx/podcast', { enabled: true }), 404, 'Subscription not found.')
  const other = fake.channel('@tiny-kitchen').id
  await expectError(a.client.put(`/api/youtube/channels/${other}/podcast`, { enabled: true }), 404, 'Subscription not found.')
  await expectError(a.client.put(`/api/youtube/channels/${channelId}/podcast`, {}), 422, 'enabled: Required')
  await expectError(a.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 0 }), 422, /^keepLast: /)
  await expectError(a.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 101 }), 422, /^keepLast: /)
  await expectError(a.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 2.5 }), 422, /^keepLast: /)
  await expectError(new Client(t).put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true }), 401, 'Unauthorized')
  expect((await podcasts(a.client)).feeds).toEqual([])
})

test('episodes: the newest plain videos, sponsor cut out, duration and length of the served file', async () => {
  sb.sbRequests.length = 0
  const res = await a.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 2 })
  expect(await res.json()).toEqual({ enabled: true, keepLast: 2 })
  expect((await b.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 2 })).status).toBe(200)
  await t.jobs.drain()
  // one download per video, shared by both users' episodes
  expect(ytdlp.calls().filter((c) => c.at(-1) === watchUrl(plain[0]!))).toHaveLength(1)

  const list = await podcasts(a.client)
  expect(list.feeds).toEqual([
    { channelId, title: 'Star Lab', url: expect.stringMatching(new RegExp(`/feeds/[\\w-]{32,}/channel/${channelId}\\.xml$`)), episodes: 2, keepLast: 2, ready: 2, fetching: 0, failed: 0, problem: null },
  ])
  const mine = await items(list.feeds[0]!.url)
  // not the Short between them
  expect(mine.map((i) => i.guid['#text'])).toEqual([plain[0], plain[1]])
  const theirs = await items((await podcasts(b.client)).feeds[0]!.url)
  expect(theirs.map((i) => i.guid['#text'])).toEqual([plain[0], plain[1]])

  for (const [list, cutSeconds] of [
    [mine, 4],
    [theirs, 0],
  ] as const) {
    for (const i of list) {
      const cut = i.guid['#text'] === plain[0] ? cutSeconds : 0
      expect(i.enclosure['@type']).toBe('audio/mpeg')
      expect(i.enclosure['@url']).toEndWith(`/audio/${i.guid['#text']}.mp3`)
      // itunes:duration and length: those of the file served
      const head = await anon().request(path(i.enclosure['@url']), { method: 'HEAD' })
      expect(head.status).toBe(200)
      expect(head.headers.get('content-type')).toBe('audio/mpeg')
      expect(head.headers.get('content-length')).toBe(String(i.enclosure['@length']))
      const body = new Uint8Array(await (await anon().request(path(i.enclosure['@url']))).arrayBuffer())
      expect(body.length).toBe(Number(i.enclosure['@length']))
      const saved = join(dir, `${crypto.randomUUID()}.mp3`)
      await Bun.write(saved, body)
      const real = (await probeMedia(t.ctx.tools.ffmpeg, saved, AbortSignal.timeout(10_000))).duration!
      expect(Math.abs(real - (TONE_SECONDS - cut))).toBeLessThan(0.3)
      expect(seconds(i['itunes:duration'])).toBe(Math.round(real))
      expect(String(i.description).includes('SponsorBlock:')).toBe(cut > 0)
    }
  }
  // the stand-in never saw a plain video id
  expect(sb.sbRequests.length).toBeGreaterThan(0)
  for (const r of sb.sbRequests) {
    expect(r).toMatch(/^\/sb\/api\/skipSegments\/[0-9a-f]{4}\?/)
    for (const id of fake.channel('@star-lab').uploads) expect(r).not.toContain(id)
  }
})

test('a feed holds exactly the newest keepLast ready episodes: a new upload pushes the oldest out, its audio may go', async () => {
  const feed = (await podcasts(a.client)).feeds[0]!.url
  const before = await items(feed)
  expect(before.map((i) => i.guid['#text'])).toEqual([plain[0], plain[1]])
  // a new upload, and a newer Short and upcoming stream that never become episodes
  const now = Date.now()
  const insert = (id: string, kind: string, at: number) =>
    t.ctx.db.execute(
      sql`insert into youtube_videos (id, channel_id, title, published_at, category_id, duration, kind) values (${id}, ${channelId}, ${`Video ${id}`}, ${new Date(at).toISOString()}::timestamptz, 28, ${TONE_SECONDS}, ${kind})`,
    )
  await insert(FRESH, 'video', now)
  await insert('freshShort1', 'short', now + 1000)
  await insert('freshLive01', 'upcoming', now + 2000)
  await runHourly()
  expect(t.jobs.waiting.map((j) => [j.def.name, j.payload])).toEqual([
    ['youtube.podcastEpisode', { videoId: FRESH, cut: 'interaction,selfpromo,sponsor', owner: a.id }],
    ['youtube.podcastEpisode', { videoId: FRESH, cut: '', owner: b.id }],
  ])
  // not ready yet: the feed keeps its two
  expect((await items(feed)).map((i) => i.guid['#text'])).toEqual([plain[0], plain[1]])
  await t.jobs.drain()
  const after = await items(feed)
  expect(after.map((i) => i.guid['#text'])).toEqual([FRESH, plain[0]])
  // the one that left: its audio address is gone from the feed's
  await expectError(anon().request(path(before[1]!.enclosure['@url'])), 404, 'Not found.')

  // the cache, squeezed to nothing: every episode in a feed stays, everything else goes
  const limit = t.ctx.env.AUDIO_CACHE_MB
  t.ctx.env.AUDIO_CACHE_MB = 1 / (1024 * 1024)
  let removed: string[]
  try {
    removed = await enforceAudioCache(t.ctx, null)
  } finally {
    t.ctx.env.AUDIO_CACHE_MB = limit
  }
  // the source audio of the three videos, and both cuts of the one that left
  expect(removed.filter((f) => !f.startsWith('podcast/')).sort()).toEqual([FRESH, plain[0]!, plain[1]!].map((id) => `${id}.mp3`).sort())
  expect(removed.filter((f) => f.startsWith('podcast/'))).toHaveLength(2)
  expect(removed.every((f) => !f.startsWith('podcast/') || f.startsWith(`podcast/${plain[1]}.`))).toBe(true)
  // what is kept, in whichever store (TEST_STORAGE=s3: the bucket)
  const kept: string[] = []
  for await (const o of t.ctx.storage.store.list('audio/')) kept.push(o.key)
  expect(kept.filter((k) => /^audio\/podcast\/[^./][^/]*$/.test(k))).toHaveLength(4)
  expect(kept.filter((k) => /^audio\/[^/]+\.mp3$/.test(k))).toEqual([])
  for (const i of await items(feed)) expect((await anon().request(path(i.enclosure['@url']), { method: 'HEAD' })).status).toBe(200)
  expect((await items((await podcasts(b.client)).feeds[0]!.url)).map((i) => i.guid['#text'])).toEqual([FRESH, plain[0]])

  // keepLast raised: the older episode is made again (its source fetched again)
  expect((await a.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 3 })).status).toBe(200)
  await t.jobs.drain()
  expect((await items(feed)).map((i) => i.guid['#text'])).toEqual([FRESH, plain[0], plain[1]])
  expect((await podcasts(a.client)).feeds[0]!.episodes).toBe(3)
})

test('SponsorBlock down: the episode is made uncut, and cut by the hourly job once it answers; failed ones wait', async () => {
  const id = plain[2]!
  sb.segments.set(id, [{ category: 'selfpromo', segment: [1, 4] }])
  sb.sponsorBlockDown = true
  try {
    expect((await a.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 4 })).status).toBe(200)
    await t.jobs.drain()
  } finally {
    sb.sponsorBlockDown = false
  }
  const feed = (await podcasts(a.client)).feeds[0]!.url
  const uncut = (await items(feed)).find((i) => i.guid['#text'] === id)!
  expect(seconds(uncut['itunes:duration'])).toBe(TONE_SECONDS)
  // a failed episode beside it is not fetched again by the schedule
  const failed = plain[3]!
  await t.ctx.db.execute(
    sql`insert into youtube_podcast_episodes (video_id, cut, state, error, failed_at) values (${failed}, 'interaction,selfpromo,sponsor', 'failed', 'x', now() - interval '1 day')`,
  )
  await runHourly()
  expect(t.jobs.waiting.map((j) => j.payload)).toEqual([{ videoId: id, cut: 'interaction,selfpromo,sponsor', owner: a.id }])
  await t.jobs.drain()
  const cut = (await items(feed)).find((i) => i.guid['#text'] === id)!
  expect(seconds(cut['itunes:duration'])).toBe(TONE_SECONDS - 3)
  expect(Number(cut.enclosure['@length'])).toBeLessThan(Number(uncut.enclosure['@length']))
  await t.ctx.db.execute(sql`delete from youtube_podcast_episodes where video_id = ${failed}`)
  expect((await a.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 2 })).status).toBe(200)
  await t.jobs.drain()
})

test('a change of SponsorBlock settings queues the episodes with the new categories, once for changes in a row', async () => {
  for (const intro of ['show', 'mute', 'skip'] as const) expect((await b.client.put('/api/youtube/sponsorblock', { categories: { intro } })).status).toBe(200)
  // one re-cut, RECUT_DELAY_MS after the first change, with the settings as they are then
  expect(t.jobs.delayed.map((j) => [j.def.name, j.payload, j.delayMs])).toEqual([['youtube.recutEpisodes', { userId: b.id }, RECUT_DELAY_MS]])
  t.jobs.waiting.push(...t.jobs.delayed.splice(0))
  await t.jobs.drain()
  expect(t.jobs.ran.filter((name) => name === 'youtube.recutEpisodes')).toHaveLength(1)
  const made = rowsOf<{ video_id: string }>(await t.ctx.db.execute(sql`select video_id from youtube_podcast_episodes where cut = 'intro' and state = 'ready'`))
  expect(made.map((r) => r.video_id).sort()).toEqual([FRESH, plain[0]!].sort())
  expect((await b.client.put('/api/youtube/sponsorblock', { categories: { intro: 'skip' } })).status).toBe(200)
  t.jobs.delayed.splice(0)
  await t.jobs.drain()
  const theirs = await items((await podcasts(b.client)).feeds[0]!.url)
  expect(theirs.map((i) => [i.guid['#text'], seconds(i['itunes:duration'])])).toEqual([
    [FRESH, TONE_SECONDS],
    [plain[0], TONE_SECONDS],
  ])
  // the intro (0-3 s) of the next one is cut once it is an episode again
  expect((await b.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 3 })).status).toBe(200)
  await t.jobs.drain()
  expect((await items((await podcasts(b.client)).feeds[0]!.url)).map((i) => seconds(i['itunes:duration']))).toEqual([TONE_SECONDS, TONE_SECONDS, TONE_SECONDS - 3])
  expect((await b.client.put('/api/youtube/sponsorblock', { categories: { intro: 'off' } })).status).toBe(200)
  t.jobs.delayed.splice(0)
  expect((await b.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 2 })).status).toBe(200)
  await t.jobs.drain()
})

test('PODCAST_MAX_EPISODES caps the sum of keepLast over a person\'s podcasts (422 naming keepLast and the limit)', async () => {
  const max = t.ctx.env.PODCAST_MAX_EPISODES
  t.ctx.env.PODCAST_MAX_EPISODES = 5
  try {
    const other = await quickUser(t)
    expect((await other.client.put('/api/youtube/subscriptions/user?channel_id=@star-lab')).status).toBe(200)
    await expectError(
      other.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 6 }),
      422,
      'keepLast: Your podcasts may keep at most 5 episodes in all; 0 are taken by your other podcasts, so this one may keep at most 5.',
    )
    expect((await other.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 5 })).status).toBe(200)
    // the same podcast's own number is not counted twice; switching it off frees its share
    expect((await other.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 4 })).status).toBe(200)
    expect((await other.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: false })).status).toBe(200)
    t.jobs.waiting.splice(0)
  } finally {
    t.ctx.env.PODCAST_MAX_EPISODES = max
  }
})

test('the bytes of the episodes in a person\'s feeds count in their storage figure', async () => {
  let total = 0
  for (const feed of (await podcasts(a.client)).feeds) for (const i of await items(feed.url)) total += Number(i.enclosure['@length'])
  expect(total).toBeGreaterThan(0)
  expect(await personEpisodeBytes(t.ctx.db, a.id)).toBe(total)
  const nobody = await quickUser(t)
  expect(await personEpisodeBytes(t.ctx.db, nobody.id)).toBe(0)
})

test('the feed: RSS fields, ETag and 304, byte ranges, all.xml and OPML', async () => {
  const list = await podcasts(a.client)
  const feed = await anon().request(path(list.feeds[0]!.url))
  expect(feed.headers.get('content-type')).toContain('application/rss+xml')
  const etag = feed.headers.get('etag')!
  expect(etag).toMatch(/^".+"$/)
  const rss = parser.parse(await feed.text()).rss
  expect(rss['@xmlns:itunes']).toBe('http://www.itunes.com/dtds/podcast-1.0.dtd')
  const ch = rss.channel
  expect(ch.title).toBe('Star Lab')
  expect(ch['itunes:author']).toBe('Star Lab')
  expect(ch['itunes:image']['@href']).toEndWith(`/art/${channelId}.jpg`)
  expect(ch.link).toContain(channelId)
  for (const i of ch.item as Item[]) {
    expect(i.guid['@isPermaLink']).toBe('false')
    expect(new Date(i.pubDate).getTime()).toBeGreaterThan(0)
    expect(i.link).toContain(`/youtube/video/${i.guid['#text']}`)
  }
  expect((await anon().request(path(list.feeds[0]!.url), { headers: { 'if-none-match': etag } })).status).toBe(304)
  const enclosure = path((ch.item as Item[])[0]!.enclosure['@url'])
  const length = Number((ch.item as Item[])[0]!.enclosure['@length'])
  const part = await anon().request(enclosure, { headers: { range: 'bytes=0-9' } })
  expect(part.status).toBe(206)
  expect(part.headers.get('content-range')).toBe(`bytes 0-9/${length}`)
  const all = parser.parse(await (await anon().request(path(list.allUrl))).text()).rss.channel
  expect((all.item as unknown[]).length).toBe(2)
  const opml = parser.parse(await (await anon().request(path(list.opmlUrl))).text()).opml
  expect(opml.body.outline['@xmlUrl']).toBe(list.feeds[0]!.url)
  // another user's secret does not open A's channel
  const other = await podcasts(b.client)
  expect(other.allUrl).not.toBe(list.allUrl)
})

test('made-up secrets and paths are 404', async () => {
  for (const p of ['/feeds/nope/all.xml', `/feeds/${'a'.repeat(32)}/all.xml`, `/feeds/${'a'.repeat(32)}/feeds.opml`, `/feeds/${'a'.repeat(32)}/audio/abcdefghijk.mp3`]) {
    await expectError(anon().request(p), 404, 'Not found.')
  }
})

test('rotation: every old feed, OPML, audio and artwork address answers 404 at once; the new ones work', async () => {
  const { imageSize } = await import('../../music/square.ts')
  const list = await podcasts(a.client)
  const ch = parser.parse(await (await anon().request(path(list.feeds[0]!.url))).text()).rss.channel
  const art = ch['itunes:image']['@href'] as string
  const audio = (ch.item as Item[])[0]!.enclosure['@url'] as string
  const res = await anon().request(path(art))
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('image/jpeg')
  expect(imageSize(new Uint8Array(await res.arrayBuffer()))).toEqual({ width: 1400, height: 1400 })
  const old = [list.feeds[0]!.url, list.allUrl, list.opmlUrl, audio, art]
  for (const url of old) expect((await anon().request(path(url))).status).toBe(200)

  const rotated = await a.client.post('/api/youtube/podcasts/rotate')
  expect(rotated.status).toBe(200)
  const now = (await rotated.json()) as Podcasts
  for (const url of old) {
    await expectError(anon().request(path(url)), 404, 'Not found.')
    expect((await anon().request(path(url), { method: 'HEAD' })).status).toBe(404)
  }
  const secret = (u: string) => path(u).split('/')[2]!
  expect(secret(now.allUrl)).not.toBe(secret(list.allUrl))
  for (const url of old) expect((await anon().request(path(url).replace(secret(url), secret(now.allUrl)))).status).toBe(200)

  // switched off: the feed is gone, its episodes may leave the cache
  expect(await (await a.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: false })).json()).toEqual({ enabled: false, keepLast: 2 })
  await expectError(anon().request(path(now.feeds[0]!.url)), 404, 'Not found.')
  expect((await podcasts(a.client)).feeds).toEqual([])
  expect(existsSync(episodeDir(t.ctx))).toBe(true)
  expect(statSync(episodeDir(t.ctx)).isDirectory()).toBe(true)
})
