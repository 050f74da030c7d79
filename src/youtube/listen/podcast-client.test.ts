import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import Parser from 'rss-parser'
import type { FakeYoutube } from '../../../scripts/fake-youtube.ts'
import { serveTestApp } from '../../../tests/support/app.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../../../tests/support/fake-ytdlp.ts'
import { makeTone, startMediaServer, type MediaServer } from '../../../tests/support/media.ts'
import { startMusicServices, type MusicServices } from '../../../tests/support/music-services.ts'
import { createYoutubeTestApp, quickUser, startTestFake, type YoutubeTestApp } from '../../../tests/support/youtube.ts'
import { imageSize } from '../../music/square.ts'
import { watchUrl } from './audio.ts'

// Real podcast clients against a followed channel's private feed, over a real socket on
// 127.0.0.1: Debian's gPodder command line (`gpo`, package gpodder) subscribes, updates and
// downloads every episode; rss-parser (a maintained npm RSS parser) reads the feed's fields.
setDefaultTimeout(120_000)

const KEEP = 3
const GPO = Bun.which('gpo')

let fake: FakeYoutube
let media: MediaServer
let sb: MusicServices
let ytdlp: FakeYtdlp
let dir: string
let t: YoutubeTestApp
let server: ReturnType<typeof serveTestApp>
let feedUrl: string
let channelId: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tunefeed-podcast-client-'))
  const tone = join(dir, 'tone.mp3')
  ;[fake, media, sb] = await Promise.all([startTestFake(), startMediaServer(), startMusicServices(), makeTone(tone, 8)])
  media.addFile('tone.mp3', tone)
  const channel = fake.channel('@star-lab')
  channelId = channel.id
  const plain = channel.uploads.filter((id) => fake.videos.get(id)!.kind === 'video')
  sb.segments.set(plain[0]!, [{ category: 'sponsor', segment: [1, 3] }])
  ytdlp = startFakeYtdlp({ urls: Object.fromEntries(channel.uploads.map((id) => [watchUrl(id), `${media.url}/files/tone.mp3`])) })
  t = await createYoutubeTestApp(fake, { YTDLP_PATH: ytdlp.path, SPONSORBLOCK_URL: sb.sbUrl, FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com' })
  server = serveTestApp(t)
  const user = await quickUser(t)
  expect((await user.client.put('/api/youtube/subscriptions/user?channel_id=@star-lab')).status).toBe(200)
  await t.jobs.drain()
  await t.ctx.db.execute(sql`update youtube_channels set thumbnail = ${`${media.url}/cover.jpg`} where id = ${channelId}`)
  expect((await user.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: KEEP })).status).toBe(200)
  await t.jobs.drain()
  // the addresses as the API gives them (the origin of the request): the real socket's
  const list = (await (await fetch(`${server.url}api/youtube/podcasts`, { headers: { cookie: user.client.cookie! } })).json()) as { feeds: { url: string }[] }
  feedUrl = list.feeds[0]!.url
  expect(feedUrl.startsWith(`${server.url}feeds/`)).toBe(true)
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

/** The enclosures as the feed lists them, by guid. */
async function enclosures() {
  const feed = await new Parser().parseURL(feedUrl)
  return new Map(feed.items.map((i) => [i.guid!, { url: i.enclosure!.url, length: Number(i.enclosure!.length) }]))
}

test('gPodder (gpo) subscribes, updates and downloads every episode in full', async () => {
  // scripts/test.ts installs Debian's gpodder (APT_PACKAGES)
  expect(GPO, 'gpo (Debian package gpodder) is not installed').toBeTruthy()
  const home = join(dir, 'gpo-home')
  const downloads = join(dir, 'gpo-downloads')
  mkdirSync(home, { recursive: true })
  mkdirSync(downloads, { recursive: true })
  // a private HOME and gPodder home: nothing of the machine's gPodder is read or written
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, GPODDER_HOME: home, GPODDER_DOWNLOAD_DIR: downloads, LANG: 'C.UTF-8', no_proxy: '*' }
  const gpo = async (...args: string[]) => {
    const p = Bun.spawn([GPO!, ...args], { env, stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' })
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
    expect({ args, code, out, err }).toMatchObject({ code: 0 })
    return out + err
  }
  await gpo('subscribe', feedUrl, 'Star Lab')
  expect(await gpo('list')).toContain(feedUrl)
  await gpo('update', feedUrl)
  const listed = await gpo('episodes', '--guid', feedUrl)
  const wanted = await enclosures()
  expect(wanted.size).toBe(KEEP)
  for (const guid of wanted.keys()) expect(listed).toContain(guid)
  await gpo('download', feedUrl)

  // every episode file there, each as long as its enclosure says
  const files = readdirSync(downloads, { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile() && !f.name.endsWith('.partial'))
    .map((f) => join(f.parentPath, f.name))
  expect(files).toHaveLength(KEEP)
  const sizes = files.map((f) => statSync(f).size).sort()
  expect(sizes).toEqual([...wanted.values()].map((e) => e.length).sort())
  expect(await gpo('partial')).not.toMatch(/\.mp3/)
})

test('the feed parses with rss-parser and has every field podcast apps require', async () => {
  const parser = new Parser<Record<string, unknown>, { guidRaw?: { _: string; $: { isPermaLink: string } }[]; itunes?: { duration?: string } }>({
    customFields: { item: [['guid', 'guidRaw', { keepArray: true }]] },
  })
  const res = await fetch(feedUrl)
  expect(res.headers.get('content-type')).toContain('application/rss+xml')
  const feed = await parser.parseString(await res.text())
  expect(feed.title).toBe('Star Lab')
  expect(feed.link).toContain(`/youtube/channel/${channelId}`)
  expect(feed.description).toBeTruthy()
  expect(feed.itunes?.author).toBe('Star Lab')
  const art = await fetch(feed.itunes!.image!)
  expect(art.status).toBe(200)
  const { width, height } = imageSize(new Uint8Array(await art.arrayBuffer()))!
  expect(width).toBe(height)
  expect(width).toBeGreaterThanOrEqual(1400)

  expect(feed.items).toHaveLength(KEEP)
  const plain = fake.channel('@star-lab').uploads.filter((id) => fake.videos.get(id)!.kind === 'video')
  expect(feed.items.map((i) => i.guid)).toEqual(plain.slice(0, KEEP))
  for (const item of feed.items) {
    const video = fake.videos.get(item.guid!)!
    expect(item.title).toBe(video.title)
    expect(item.guidRaw?.[0]?.$.isPermaLink).toBe('false')
    expect(item.guidRaw?.[0]?._).toBe(item.guid)
    expect(new Date(item.pubDate!).getTime()).toBe(video.publishedAt.getTime())
    expect(item.enclosure?.type).toBe('audio/mpeg')
    expect(item.enclosure?.url).toBe(`${feedUrl.replace(/\/channel\/.*$/, '')}/audio/${item.guid}.mp3`)
    const head = await fetch(item.enclosure!.url, { method: 'HEAD' })
    expect(head.headers.get('content-length')).toBe(String(item.enclosure!.length))
    expect(item.itunes?.duration).toMatch(/^\d+:\d\d:\d\d$/)
    // rss-parser gives an item's <description> as `content`
    expect(item.content?.startsWith(video.description.trim())).toBe(true)
    expect(item.link).toContain(`/youtube/video/${item.guid}`)
  }
  // the newest one had its sponsor read (1-3 s) cut: 6 s of the 8 s tone
  expect(feed.items[0]!.itunes?.duration).toBe('0:00:06')
  expect(feed.items[0]!.content).toEndWith('SponsorBlock: 0:02 of skipped parts cut out.')
  expect(feed.items[1]!.itunes?.duration).toBe('0:00:08')
})
