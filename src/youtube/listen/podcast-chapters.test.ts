import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import NodeID3 from 'node-id3'
import type { FakeYoutube } from '../../../scripts/fake-youtube.ts'
import { serveTestApp } from '../../../tests/support/app.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../../../tests/support/fake-ytdlp.ts'
import { ffmpeg, startMediaServer, type MediaServer } from '../../../tests/support/media.ts'
import { startMusicServices, type MusicServices } from '../../../tests/support/music-services.ts'
import { createYoutubeTestApp, quickUser, startTestFake, type YoutubeTestApp } from '../../../tests/support/youtube.ts'
import { watchUrl } from './audio.ts'

// Podcasting 2.0 chapters and transcripts (docs/decisions/291), end to end: the stand-in yt-dlp
// fetches a 20 s talk whose page has chapters and an English subtitle track (tests/support/media.ts
// /talk.html) with the audio in one pass; SponsorBlock cuts 3-9 s out. The talk is a rising tone
// (200 Hz + 100 Hz per second of the video), so the pitch heard at any time of the served file
// says which second of the video it is: the chapters' and cues' times are checked against it.
setDefaultTimeout(120_000)

const CUT: [number, number] = [3, 9]
const GPO = Bun.which('gpo')

let fake: FakeYoutube
let media: MediaServer
let sb: MusicServices
let ytdlp: FakeYtdlp
let dir: string
let t: YoutubeTestApp
let server: ReturnType<typeof serveTestApp>
let feedUrl: string
let videoId: string
let feed: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tunefeed-podcast-chapters-'))
  const talk = join(dir, 'talk.mp3')
  ;[fake, media, sb] = await Promise.all([
    startTestFake(),
    startMediaServer(),
    startMusicServices(),
    ffmpeg(['-f', 'lavfi', '-i', 'aevalsrc=sin(2*PI*(200*t+50*t*t)):s=44100:d=20', '-c:a', 'libmp3lame', '-b:a', '128k', talk]),
  ])
  media.addFile('talk.mp3', talk)
  const channel = fake.channel('@star-lab')
  videoId = channel.uploads.filter((id) => fake.videos.get(id)!.kind === 'video')[0]!
  sb.segments.set(videoId, [{ category: 'sponsor', segment: CUT }])
  ytdlp = startFakeYtdlp({ urls: Object.fromEntries(channel.uploads.map((id) => [watchUrl(id), `${media.url}/talk.html?media=/files/talk.mp3`])) })
  t = await createYoutubeTestApp(fake, { YTDLP_PATH: ytdlp.path, SPONSORBLOCK_URL: sb.sbUrl, FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com', PODCAST_SUBTITLE_LANGS: 'de, en' })
  server = serveTestApp(t)
  const user = await quickUser(t)
  expect((await user.client.put('/api/youtube/subscriptions/user?channel_id=@star-lab')).status).toBe(200)
  await t.jobs.drain()
  expect((await user.client.put(`/api/youtube/channels/${channel.id}/podcast`, { enabled: true, keepLast: 1 })).status).toBe(200)
  await t.jobs.drain()
  const list = (await (await fetch(`${server.url}api/youtube/podcasts`, { headers: { cookie: user.client.cookie! } })).json()) as { feeds: { url: string }[] }
  feedUrl = list.feeds[0]!.url
  feed = await (await fetch(feedUrl)).text()
}, 240_000)
afterAll(async () => {
  server?.stop(true)
  await t?.close()
  await media?.stop()
  await sb?.stop()
  await fake?.stop()
  ytdlp?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const root = () => feedUrl.replace(/\/channel\/[^/]+$/, '')

/** The file decoded (mono, 44.1 kHz): decoded once, as seeking in an MP3 is not sample-exact. */
async function decode(mp3: string): Promise<Float32Array> {
  const p = Bun.spawn(['/usr/bin/ffmpeg', '-v', 'error', '-i', mp3, '-ac', '1', '-ar', '44100', '-f', 'f32le', '-'], { stdout: 'pipe' })
  return new Float32Array(await new Response(p.stdout).arrayBuffer())
}

/** The video's second heard at `at` s of the file: the tone's pitch over 0.2 s (zero crossings), back through 200 + 100 t. */
function videoSecondAt(pcm: Float32Array, at: number): number {
  const from = Math.round(at * 44100)
  const to = Math.min(pcm.length, from + 8820)
  let crossings = 0
  for (let i = from + 1; i < to; i++) if (pcm[i - 1]! < 0 !== pcm[i]! < 0) crossings++
  const hz = crossings / 2 / ((to - from) / 44100)
  return (hz - 200) / 100
}

test('the feed carries podcast:chapters and podcast:transcript (the first language there is) under its secret', () => {
  expect(ytdlp.calls().some((a) => a.includes('--write-subs') && a.includes('--write-auto-subs') && a[a.indexOf('--sub-langs') + 1] === 'de,en')).toBe(true)
  expect(feed).toContain(`<podcast:chapters url="${root()}/chapters/${videoId}.json" type="application/json+chapters"/>`)
  expect(feed).toContain(`<podcast:transcript url="${root()}/transcript/${videoId}.vtt" type="text/vtt" language="en"/>`)
})

test('chapters and transcript follow the cut audio to half a second; the MP3 carries the same chapters as CTOC/CHAP', async () => {
  const chaptersRes = await fetch(`${root()}/chapters/${videoId}.json`)
  expect(chaptersRes.status).toBe(200)
  expect(chaptersRes.headers.get('content-type')).toStartWith('application/json+chapters')
  const json = (await chaptersRes.json()) as { version: string; chapters: { startTime: number; title: string }[] }
  expect(json.version).toBe('1.2.0')
  // the sponsor's chapter is wholly cut out; "Middle" started inside the cut: it starts at its end
  expect(json.chapters.map((c) => c.title)).toEqual(['Opening', 'Middle part', 'End & <credits>'])
  expect(json.chapters.map((c) => c.startTime)).toEqual([0, 3, 8])

  const vtt = await (await fetch(`${root()}/transcript/${videoId}.vtt`)).text()
  expect(vtt).toStartWith('WEBVTT\n')
  const cues = [...vtt.matchAll(/(\d\d):(\d\d):(\d\d)\.(\d{3}) --> (\d\d):(\d\d):(\d\d)\.(\d{3})\n([^\n]+)/g)].map((m) => ({
    start: Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(m[4]) / 1000,
    end: Number(m[5]) * 3600 + Number(m[6]) * 60 + Number(m[7]) + Number(m[8]) / 1000,
    text: m[9]!,
  }))
  // untrusted text: markup and control characters gone, & < > escaped; the cue inside the cut is left out, the overlapping one clipped
  expect(cues).toEqual([
    { start: 1, end: 2.5, text: 'Hello &amp; welcome' },
    { start: 2, end: 3, text: 'Overlaps the cut' },
    { start: 3, end: 4, text: 'Starts in the cut' },
    { start: 9, end: 10, text: 'alert(1)Near the end' },
  ])
  expect(vtt).not.toMatch(/[\u0000-\u0008<]/)

  // the served file: what is heard at each chapter's and cue's start is that moment of the video
  const mp3 = join(dir, 'episode.mp3')
  await writeFile(mp3, new Uint8Array(await (await fetch(`${root()}/audio/${videoId}.mp3`)).arrayBuffer()))
  const pcm = await decode(mp3)
  // at each served start, the moment of the video it stands for (the page's start, or the cut's end when it started inside it)
  const wanted = [
    ...json.chapters.map((c, i) => [c.startTime, [0, 9, 14][i]!] as const),
    ...cues.map((c, i) => [c.start, [1, 2, 9, 15][i]!] as const),
  ]
  for (const [at, second] of wanted) {
    const off = Math.abs(videoSecondAt(pcm, at) - (second + 0.1))
    expect({ at, second, withinHalfASecond: off < 0.5 }).toEqual({ at, second, withinHalfASecond: true })
  }

  const tags = NodeID3.read(mp3)
  const chapters = tags.chapter ?? []
  expect(chapters.map((c) => c.tags?.title)).toEqual(json.chapters.map((c) => c.title))
  expect(chapters.map((c) => c.startTimeMs)).toEqual(json.chapters.map((c) => Math.round(c.startTime * 1000)))
  expect(tags.tableOfContents?.[0]?.elements).toEqual(chapters.map((c) => c.elementID))
  expect(tags.tableOfContents?.[0]?.isOrdered).toBe(true)
})

test('chapters and transcripts of what is not in the feed, or under a made-up secret, are 404', async () => {
  const made = root().replace(/\/feeds\/[^/]+$/, `/feeds/${'A'.repeat(32)}`)
  for (const url of [`${made}/chapters/${videoId}.json`, `${root()}/chapters/aaaaaaaaaaa.json`, `${root()}/transcript/${videoId}.json`, `${root()}/transcript/../${videoId}.vtt`]) {
    expect((await fetch(url)).status).toBe(404)
  }
})

test('gPodder (gpo) reads the feed with the new tags and downloads the episode', async () => {
  expect(GPO, 'gpo (Debian package gpodder) is not installed').toBeTruthy()
  const home = join(dir, 'gpo-home')
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, GPODDER_HOME: home, GPODDER_DOWNLOAD_DIR: join(dir, 'gpo-downloads'), LANG: 'C.UTF-8', no_proxy: '*' }
  const gpo = async (...args: string[]) => {
    const p = Bun.spawn([GPO!, ...args], { env, stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' })
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
    if (code !== 0) throw new Error(`gpo ${args.join(' ')}: ${code} ${err}`)
    return out
  }
  await gpo('subscribe', feedUrl, 'Star Lab')
  await gpo('update', feedUrl)
  expect(await gpo('episodes', '--guid', feedUrl)).toContain(videoId)
  await gpo('download', feedUrl)
  expect(await gpo('partial')).not.toMatch(/\.mp3/)
})
