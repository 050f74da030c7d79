import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { XMLParser } from 'fast-xml-parser'
import type { FakeYoutube } from '../../../scripts/fake-youtube.ts'
import { Client } from '../../../tests/support/app.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../../../tests/support/fake-ytdlp.ts'
import { expectError } from '../../../tests/support/http.ts'
import { makeTone, startMediaServer, type MediaServer } from '../../../tests/support/media.ts'
import { createYoutubeTestApp, quickUser, startTestFake, type YoutubeTestApp } from '../../../tests/support/youtube.ts'
import { watchUrl } from './audio.ts'

// A followed channel as a private podcast: its newest videos' audio (the stand-in yt-dlp maps
// their watch URLs to a tone on the loopback media server), feeds read without a cookie.
setDefaultTimeout(60_000)

let fake: FakeYoutube
let media: MediaServer
let ytdlp: FakeYtdlp
let dir: string
let toneBytes: number
let t: YoutubeTestApp
let a: Awaited<ReturnType<typeof quickUser>>
let b: Awaited<ReturnType<typeof quickUser>>
let channelId: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tunefeed-podcasts-'))
  const tone = join(dir, 'tone.mp3')
  ;[fake, media] = await Promise.all([startTestFake(), startMediaServer(), makeTone(tone, 3)])
  media.addFile('tone.mp3', tone)
  toneBytes = statSync(tone).size
  const channel = fake.channel('@tiny-kitchen')
  channelId = channel.id
  ytdlp = startFakeYtdlp({ urls: Object.fromEntries(channel.uploads.map((id) => [watchUrl(id), `${media.url}/files/tone.mp3`])) })
  t = await createYoutubeTestApp(fake, { YTDLP_PATH: ytdlp.path, FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com' })
  a = await quickUser(t)
  b = await quickUser(t)
  expect((await a.client.put('/api/youtube/subscriptions/user?channel_id=@tiny-kitchen')).status).toBe(200)
  expect((await b.client.put('/api/youtube/subscriptions/user?channel_id=@star-lab')).status).toBe(200)
  await t.jobs.drain()
}, 60_000)
afterAll(async () => {
  await t?.close()
  await media?.stop()
  await fake?.stop()
  ytdlp?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

type Podcasts = { feeds: { channelId: string; title: string; url: string; episodes: number }[]; allUrl: string; opmlUrl: string }
const podcasts = async (c: Client): Promise<Podcasts> => {
  const res = await c.get('/api/youtube/podcasts')
  expect(res.status).toBe(200)
  return res.json()
}
/** A feed address fetched as a podcast app would: no cookie. */
const anon = () => new Client(t)
const path = (url: string) => new URL(url).pathname
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' })

test('switch input: 404 for a channel not followed, 422 naming the field', async () => {
  await expectError(b.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true }), 404, 'Subscription not found.')
  await expectError(a.client.put('/api/youtube/channels/UCxxxxxxxxxxxxxxxxxxxxxx/podcast', { enabled: true }), 404, 'Subscription not found.')
  await expectError(a.client.put(`/api/youtube/channels/${channelId}/podcast`, {}), 422, 'enabled: Required')
  await expectError(a.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 0 }), 422, /^keepLast: /)
  await expectError(a.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 101 }), 422, /^keepLast: /)
  await expectError(new Client(t).put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true }), 401, 'Unauthorized')
  expect((await podcasts(a.client)).feeds).toEqual([])
})

test('a podcast: episodes fetched, feeds without a cookie, ETag, ranges, rotation', async () => {
  const res = await a.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 2 })
  expect(res.status).toBe(200)
  expect(await res.json()).toEqual({ enabled: true, keepLast: 2 })
  expect(t.jobs.waiting.filter((j) => j.def.name === 'youtube.audio')).toHaveLength(2)
  await t.jobs.drain()

  const list = await podcasts(a.client)
  expect(list.feeds).toEqual([{ channelId, title: 'Tiny Kitchen', url: expect.stringMatching(new RegExp(`/feeds/[\\w-]{32,}/channel/${channelId}\\.xml$`)), episodes: 2 }])
  expect(list.allUrl).toMatch(/\/feeds\/[\w-]{32,}\/all\.xml$/)
  expect(list.opmlUrl).toMatch(/\/feeds\/[\w-]{32,}\/feeds\.opml$/)

  const feed = await anon().request(path(list.feeds[0]!.url))
  expect(feed.status).toBe(200)
  expect(feed.headers.get('content-type')).toContain('application/rss+xml')
  const etag = feed.headers.get('etag')!
  expect(etag).toMatch(/^".+"$/)
  const rss = parser.parse(await feed.text()).rss
  expect(rss['@xmlns:itunes']).toBe('http://www.itunes.com/dtds/podcast-1.0.dtd')
  const ch = rss.channel
  expect(ch.title).toBe('Tiny Kitchen')
  expect(ch['itunes:author']).toBe('Tiny Kitchen')
  expect(ch['itunes:image']['@href']).toBeTruthy()
  expect(ch.link).toContain(channelId)
  // biome-ignore lint/suspicious/noExplicitAny: parsed XML walked freely by a test
  const items = ch.item as Record<string, any>[]
  const newest = fake.channel('@tiny-kitchen').uploads.filter((id) => fake.videos.get(id)!.kind === 'video').slice(0, 2)
  expect(items.map((i) => i.guid['#text'])).toEqual(newest)
  for (const i of items) {
    expect(i.guid['@isPermaLink']).toBe('false')
    expect(i.enclosure['@type']).toBe('audio/mpeg')
    expect(Number(i.enclosure['@length'])).toBe(toneBytes)
    expect(i['itunes:duration']).toMatch(/^\d+:\d\d:\d\d$/)
    expect(new Date(i.pubDate).getTime()).toBe(fake.videos.get(i.guid['#text'])!.publishedAt.getTime())
    expect(i.link).toContain(`/youtube/video/${i.guid['#text']}`)
  }
  // unchanged: 304
  const again = await anon().request(path(list.feeds[0]!.url), { headers: { 'if-none-match': etag } })
  expect(again.status).toBe(304)

  // the enclosure: HEAD and ranges, no cookie
  const enclosure = path(items[0]!.enclosure['@url'])
  const head = await anon().request(enclosure, { method: 'HEAD' })
  expect(head.status).toBe(200)
  expect(head.headers.get('content-length')).toBe(String(toneBytes))
  const part = await anon().request(enclosure, { headers: { range: 'bytes=0-9' } })
  expect(part.status).toBe(206)
  expect(part.headers.get('content-range')).toBe(`bytes 0-9/${toneBytes}`)

  // all.xml and the OPML
  const all = parser.parse(await (await anon().request(path(list.allUrl))).text()).rss.channel
  expect((all.item as unknown[]).length).toBe(2)
  const opml = parser.parse(await (await anon().request(path(list.opmlUrl))).text()).opml
  expect(opml.body.outline['@xmlUrl']).toBe(list.feeds[0]!.url)

  // another user's secret does not open A's channel
  const other = await podcasts(b.client)
  await expectError(anon().request(path(other.allUrl).replace('all.xml', `channel/${channelId}.xml`)), 404, 'Not found.')

  // rotation: every old address answers 404 at once, the new ones work
  const rotated = await a.client.post('/api/youtube/podcasts/rotate')
  expect(rotated.status).toBe(200)
  const now = (await rotated.json()) as Podcasts
  expect(now.allUrl).not.toBe(list.allUrl)
  for (const old of [list.feeds[0]!.url, list.allUrl, list.opmlUrl, items[0]!.enclosure['@url']]) {
    await expectError(anon().request(path(old)), 404, 'Not found.')
  }
  expect((await anon().request(path(now.feeds[0]!.url))).status).toBe(200)

  // switched off: the feed is gone
  expect(await (await a.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: false })).json()).toEqual({ enabled: false, keepLast: 2 })
  await expectError(anon().request(path(now.feeds[0]!.url)), 404, 'Not found.')
  expect((await podcasts(a.client)).feeds).toEqual([])
})

test('made-up secrets and paths are 404', async () => {
  for (const p of ['/feeds/nope/all.xml', `/feeds/${'a'.repeat(32)}/all.xml`, `/feeds/${'a'.repeat(32)}/feeds.opml`, `/feeds/${'a'.repeat(32)}/audio/abcdefghijk.mp3`]) {
    await expectError(anon().request(p), 404, 'Not found.')
  }
})

test('the hourly job queues missing episodes (not failed ones); the cache keeps episodes still in a feed', async () => {
  const { sql } = await import('drizzle-orm')
  const { enforceAudioCache } = await import('./audio.ts')
  const { podcastEpisodesJob } = await import('./jobs.ts')
  expect((await a.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 2 })).status).toBe(200)
  await t.jobs.drain()
  const plain = fake.channel('@tiny-kitchen').uploads.filter((id) => fake.videos.get(id)!.kind === 'video')
  const [e1, e2, older] = plain as [string, string, string]
  // an episode's audio gone, and a failed one beside it: only the first is fetched again
  await t.ctx.db.execute(sql`delete from youtube_audio where video_id = ${e1}`)
  await t.ctx.db.execute(sql`update youtube_audio set state = 'failed', error = 'x', failed_at = now() - interval '1 day' where video_id = ${e2}`)
  await podcastEpisodesJob.run(t.ctx, {}, { id: 'x', attempt: 1, attempts: 1, signal: new AbortController().signal, progress: async () => {} })
  expect(t.jobs.waiting.map((j) => j.payload)).toEqual([{ videoId: e1 }])
  await t.jobs.drain()
  await t.ctx.db.execute(sql`delete from youtube_audio where video_id = ${e2}`)
  expect((await a.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true })).status).toBe(200)
  // an older video played in listen mode, not in the feed
  expect((await a.client.post(`/api/youtube/videos/${older}/audio`)).status).toBe(200)
  await t.jobs.drain()
  expect((await podcasts(a.client)).feeds[0]!.episodes).toBe(2)
  const limit = t.ctx.env.AUDIO_CACHE_MB
  t.ctx.env.AUDIO_CACHE_MB = 1 / (1024 * 1024)
  try {
    expect(await enforceAudioCache(t.ctx, null)).toEqual([older])
  } finally {
    t.ctx.env.AUDIO_CACHE_MB = limit
  }
  expect((await podcasts(a.client)).feeds[0]!.episodes).toBe(2)
})

test('artwork: the channel thumbnail as a 1400 px square JPEG; gone with rotation', async () => {
  const { sql } = await import('drizzle-orm')
  const { imageSize } = await import('../../music/square.ts')
  // the fake's thumbnails are SVG: a JPEG from the media server stands in for YouTube's
  await t.ctx.db.execute(sql`update youtube_channels set thumbnail = ${`${media.url}/cover.jpg`} where id = ${channelId}`)
  expect((await a.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 2 })).status).toBe(200)
  await t.jobs.drain()
  const list = await podcasts(a.client)
  const ch = parser.parse(await (await anon().request(path(list.feeds[0]!.url))).text()).rss.channel
  const art = path(ch['itunes:image']['@href'])
  expect(art).toEndWith(`/art/${channelId}.jpg`)
  const res = await anon().request(art)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('image/jpeg')
  expect(imageSize(new Uint8Array(await res.arrayBuffer()))).toEqual({ width: 1400, height: 1400 })
  expect((await anon().request(art, { method: 'HEAD' })).status).toBe(200)
  expect((await a.client.post('/api/youtube/podcasts/rotate')).status).toBe(200)
  await expectError(anon().request(art), 404, 'Not found.')
})
