import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import Parser from 'rss-parser'
import { SubsonicAPI } from 'subsonic-api'
import type { FakeYoutube } from '../../scripts/fake-youtube.ts'
import { type Client, serveTestApp } from '../../tests/support/app.ts'
import { type FakeYtdlp, startFakeYtdlp } from '../../tests/support/fake-ytdlp.ts'
import { makeTone, type MediaServer, startMediaServer } from '../../tests/support/media.ts'
import { type MusicServices, startMusicServices } from '../../tests/support/music-services.ts'
import { addFinishedJob } from '../../tests/support/subsonic.ts'
import { createYoutubeTestApp, quickUser, startTestFake, type YoutubeTestApp } from '../../tests/support/youtube.ts'
import { watchUrl } from '../youtube/listen/audio.ts'
import { episodeDir } from '../youtube/listen/episode-queries.ts'

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely, field by field
type Json = any

// Subsonic podcasts and bookmarks over the podcast feeds (issue 35), through the real
// OpenSubsonic client (npm subsonic-api): a followed channel's episodes made by the real
// pipeline (fake YouTube, the yt-dlp stand-in, the SponsorBlock stand-in cutting 1-3 s of an 8 s tone).
setDefaultTimeout(120_000)

const KEEP = 3
let fake: FakeYoutube
let media: MediaServer
let sb: MusicServices
let ytdlp: FakeYtdlp
let dir: string
let t: YoutubeTestApp
let server: ReturnType<typeof serveTestApp>
let base: string
let channelId: string
let cutVideo: string

interface Person {
  client: Client
  id: string
  apiKey: string
  api: SubsonicAPI
}
let alice: Person
let bob: Person

async function person(): Promise<Person> {
  const { client, id } = await quickUser(t)
  const { token: apiKey } = (await (await client.post('/api/auth/tokens', { name: 'player' })).json()) as { token: string }
  return { client, id, apiKey, api: new SubsonicAPI({ url: base, auth: { apiKey } }) }
}

async function json(p: Person, method: string, params: Record<string, string> = {}) {
  const q = new URLSearchParams({ f: 'json', v: '1.16.1', c: 'test', apiKey: p.apiKey, ...params })
  const res = await fetch(`${base}rest/${method}?${q}`)
  expect(res.status).toBe(200)
  return ((await res.json()) as { 'subsonic-response': Json })['subsonic-response']
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tunefeed-subsonic-podcasts-'))
  const tone = join(dir, 'tone.mp3')
  ;[fake, media, sb] = await Promise.all([startTestFake(), startMediaServer(), startMusicServices(), makeTone(tone, 8)])
  media.addFile('tone.mp3', tone)
  const channel = fake.channel('@star-lab')
  channelId = channel.id
  const plain = channel.uploads.filter((id) => fake.videos.get(id)!.kind === 'video')
  cutVideo = plain[0]!
  sb.segments.set(cutVideo, [{ category: 'sponsor', segment: [1, 3] }])
  ytdlp = startFakeYtdlp({ urls: Object.fromEntries(channel.uploads.map((id) => [watchUrl(id), `${media.url}/files/tone.mp3`])) })
  t = await createYoutubeTestApp(fake, { YTDLP_PATH: ytdlp.path, SPONSORBLOCK_URL: sb.sbUrl, FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com' })
  server = serveTestApp(t)
  base = server.url.toString()
  alice = await person()
  bob = await person()
  for (const p of [alice, bob]) expect((await p.client.put('/api/youtube/subscriptions/user?channel_id=@star-lab')).status).toBe(200)
  await t.jobs.drain()
  await t.ctx.db.execute(sql`update youtube_channels set thumbnail = ${`${media.url}/cover.jpg`} where id = ${channelId}`)
  expect((await alice.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: KEEP })).status).toBe(200)
  await t.jobs.drain()
}, 120_000)
afterAll(async () => {
  server?.stop(true)
  await t?.close()
  await media?.stop()
  await sb?.stop()
  await fake?.stop()
  ytdlp?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

test('getPodcasts, getNewestPodcasts, getPodcastEpisode; stream by streamId with ranges', async () => {
  const { podcasts } = await alice.api.getPodcasts({ includeEpisodes: true })
  expect(podcasts.channel!.length).toBe(1)
  const ch = podcasts.channel![0]!
  expect(ch).toMatchObject({ id: `pc-${channelId}`, url: `https://www.youtube.com/channel/${channelId}`, status: 'completed', coverArt: `pc-${channelId}` })
  expect(ch.episode!.length).toBe(KEEP)
  for (const e of ch.episode!) expect(e).toMatchObject({ status: 'completed', channelId: ch.id, contentType: 'audio/mpeg', suffix: 'mp3', streamId: `ps-${e.id.slice(3)}` })
  const cut = ch.episode!.find((e) => e.id === `pe-${cutVideo}`)!
  expect(cut.duration).toBe(6)
  expect((await alice.api.getPodcasts({ includeEpisodes: false })).podcasts.channel![0]!.episode).toBeUndefined()

  const newest = (await json(alice, 'getNewestPodcasts', { count: '2' })).newestPodcasts.episode
  expect(newest.map((e: Json) => e.id)).toEqual(ch.episode!.slice(0, 2).map((e) => e.id))
  expect((await alice.api.getPodcastEpisode({ id: cut.id })).podcastEpisode.title).toBe(cut.title)

  const file = readFileSync(join(episodeDir(t.ctx), readdirSync(episodeDir(t.ctx)).find((f) => f.startsWith(`${cutVideo}.`))!))
  const q = new URLSearchParams({ apiKey: alice.apiKey, v: '1.16.1', c: 'test', id: cut.streamId! })
  const whole = await fetch(`${base}rest/stream?${q}`)
  expect(whole.status).toBe(200)
  expect(Buffer.from(await whole.arrayBuffer()).equals(file)).toBe(true)
  const part = await fetch(`${base}rest/stream?${q}`, { headers: { Range: 'bytes=10-19' } })
  expect(part.status).toBe(206)
  expect(Buffer.from(await part.arrayBuffer()).equals(file.subarray(10, 20))).toBe(true)
  const art = await fetch(`${base}rest/getCoverArt?${new URLSearchParams({ apiKey: alice.apiKey, v: '1.16.1', c: 'test', id: ch.id })}`)
  expect(art.status).toBe(200)
  expect(art.headers.get('content-type')).toBe('image/jpeg')
})

test("another user's podcast ids are error 70", async () => {
  for (const [method, id] of [
    ['getPodcastEpisode', `pe-${cutVideo}`],
    ['stream', `ps-${cutVideo}`],
    ['getPodcasts', `pc-${channelId}`],
    ['deletePodcastChannel', `pc-${channelId}`],
    ['downloadPodcastEpisode', `pe-${cutVideo}`],
    ['deletePodcastEpisode', `pe-${cutVideo}`],
    ['createBookmark', `pe-${cutVideo}`],
  ])
    expect((await json(bob, method, { id, position: '1000' })).error.code).toBe(70)
  expect((await bob.api.getPodcasts({})).podcasts.channel).toBeUndefined()
})

test('an episode bookmark is the web player position, converted through the cut segment', async () => {
  // 2.0 s into the file is 4.0 s into the video (1-3 s were cut)
  await alice.api.createBookmark({ id: `pe-${cutVideo}`, position: 2000, comment: 'here' })
  const web = (await (await alice.client.get(`/api/youtube/videos/${cutVideo}/progress`)).json()) as { playedSeconds: number }
  expect(web.playedSeconds).toBeCloseTo(4, 1)
  // the web player stops at 6.5 s of the video: 4.5 s of the file
  expect((await alice.client.put(`/api/youtube/videos/${cutVideo}/progress`, { playedSeconds: 6.5, duration: 8 })).status).toBe(200)
  let marks = (await alice.api.getBookmarks()).bookmarks.bookmark!
  expect(marks.map((b) => [b.entry.id, b.position, b.comment])).toEqual([[`pe-${cutVideo}`, 4500, 'here']])
  // a position inside the cut is where the cut was
  expect((await alice.client.put(`/api/youtube/videos/${cutVideo}/progress`, { playedSeconds: 2, duration: 8 })).status).toBe(200)
  marks = (await alice.api.getBookmarks()).bookmarks.bookmark!
  expect(marks[0]!.position).toBe(1000)
  // a song's bookmark beside it; deleting one leaves the other
  const song = `tr-${await addFinishedJob(t, alice.id, { title: 'Song', artist: 'A', album: 'B' })}`
  await alice.api.createBookmark({ id: song, position: 1234 })
  marks = (await alice.api.getBookmarks()).bookmarks.bookmark!
  expect(marks.map((b) => [b.entry.id, b.position]).sort()).toEqual([
    [`pe-${cutVideo}`, 1000],
    [song, 1234],
  ])
  expect((await json(bob, 'createBookmark', { id: song, position: '1' })).error.code).toBe(70)
  await alice.api.deleteBookmark({ id: `pe-${cutVideo}` })
  expect(((await (await alice.client.get(`/api/youtube/videos/${cutVideo}/progress`)).json()) as { playedSeconds: number }).playedSeconds).toBe(0)
  expect((await alice.api.getBookmarks()).bookmarks.bookmark!.map((b) => b.entry.id)).toEqual([song])
  await alice.api.deleteBookmark({ id: song })
  expect((await alice.api.getBookmarks()).bookmarks.bookmark).toBeUndefined()
})

test('deletePodcastEpisode: skipped, out of the feed; downloadPodcastEpisode puts it back', async () => {
  const feedUrl = ((await (await alice.client.get('/api/youtube/podcasts')).json()) as { feeds: { url: string }[] }).feeds[0]!.url
  const guids = async () => (await new Parser().parseString(await (await fetch(feedUrl.replace(/^https?:\/\/[^/]+\//, base))).text())).items.map((i) => i.guid)
  expect(await guids()).toContain(cutVideo)
  await alice.api.deletePodcastEpisode({ id: `pe-${cutVideo}` })
  expect((await alice.api.getPodcastEpisode({ id: `pe-${cutVideo}` })).podcastEpisode.status).toBe('skipped')
  expect((await alice.api.getPodcasts({})).podcasts.channel![0]!.episode!.length).toBe(KEEP)
  expect(await guids()).not.toContain(cutVideo)
  expect((await guids()).length).toBe(KEEP - 1)
  await alice.api.downloadPodcastEpisode({ id: `pe-${cutVideo}` })
  await t.jobs.drain()
  expect((await alice.api.getPodcastEpisode({ id: `pe-${cutVideo}` })).podcastEpisode.status).toBe('completed')
  expect(await guids()).toContain(cutVideo)
  expect((await alice.api.refreshPodcasts()).status).toBe('ok')
})

test('createPodcastChannel takes only YouTube channels; deletePodcastChannel keeps the follow', async () => {
  for (const url of ['https://example.com/feed.xml', 'http://127.0.0.1:1/@star-lab', 'ftp://youtube.com.evil/x']) {
    const res = await json(bob, 'createPodcastChannel', { url })
    expect(res.error).toEqual({ code: 0, message: 'Only YouTube channels can be added.' })
  }
  // (its episodes are fetched in the background: not waited for here)
  await bob.api.createPodcastChannel({ url: 'https://www.youtube.com/@star-lab' })
  const ch = (await bob.api.getPodcasts({})).podcasts.channel!
  expect(ch.map((c) => c.id)).toEqual([`pc-${channelId}`])
  await bob.api.deletePodcastChannel({ id: `pc-${channelId}` })
  expect((await bob.api.getPodcasts({})).podcasts.channel).toBeUndefined()
  const subs = (await (await bob.client.get('/api/youtube/subscriptions/list')).json()) as Json
  expect(JSON.stringify(subs)).toContain(channelId)
})

test('the feeds carry a podcast:guid (UUIDv5 of the first address, as the Podcast Index specifies) that survives rotation', async () => {
  const urls = async () => (await (await alice.client.get('/api/youtube/podcasts')).json()) as { feeds: { url: string }[]; allUrl: string }
  const first = await urls()
  const guidOf = async (url: string) => {
    const body = await (await fetch(url.replace(/^https?:\/\/[^/]+\//, base))).text()
    expect(body).toContain('xmlns:podcast="https://podcastindex.org/namespace/1.0"')
    return /<podcast:guid>([0-9a-f-]{36})<\/podcast:guid>/.exec(body)?.[1]
  }
  const channelGuid = await guidOf(first.feeds[0]!.url)
  // the address as this request reaches it (PUBLIC_URL unset: the request's origin)
  const asFetched = first.feeds[0]!.url.replace(/^https?:\/\/[^/]+\//, base)
  expect(channelGuid).toBe(Bun.randomUUIDv5(asFetched.replace(/^https?:\/\//, ''), 'ead4c236-bf58-58c6-a2c6-a6b28d128cb6'))
  const allGuid = await guidOf(first.allUrl)
  expect(allGuid).not.toBe(channelGuid)
  expect((await alice.client.post('/api/youtube/podcasts/rotate', {})).status).toBe(200)
  const rotated = await urls()
  expect(rotated.feeds[0]!.url).not.toBe(first.feeds[0]!.url)
  expect(await guidOf(rotated.feeds[0]!.url)).toBe(channelGuid)
  expect(await guidOf(rotated.allUrl)).toBe(allGuid)
})
