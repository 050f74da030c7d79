import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SubsonicAPI } from 'subsonic-api'
import type { FakeYoutube } from '../../scripts/fake-youtube.ts'
import { serveTestApp } from '../../tests/support/app.ts'
import { type FakeYtdlp, startFakeYtdlp } from '../../tests/support/fake-ytdlp.ts'
import { type Lrclib, startLrclib } from '../../tests/support/lrclib.ts'
import { makeTone, type MediaServer, startMediaServer, testMedia } from '../../tests/support/media.ts'
import { listJobs, musicForm, postForm } from '../../tests/support/music.ts'
import { type MusicServices, startMusicServices } from '../../tests/support/music-services.ts'
import { createYoutubeTestApp, quickUser, startTestFake, type YoutubeTestApp } from '../../tests/support/youtube.ts'
import { watchUrl } from '../youtube/listen/audio.ts'
import { episodeDir } from '../youtube/listen/episode-queries.ts'

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely, field by field
type Json = any

// Issue 35's "done when", as one player would go through it with the real OpenSubsonic client
// (npm subsonic-api) signed in with the app password (salted token): getPodcasts, stream an
// episode, createBookmark, and the web player's saved position is there (the position it resumes
// from); getLyricsBySongId on a track whose lyrics were looked up at the LRCLIB stand-in
// when its job finished; stream at maxBitRate=64, read back by ffprobe. The episode is made by the
// real pipeline (fake YouTube, the yt-dlp stand-in, SponsorBlock cutting 1-3 s of a 30 s tone).
// Runs on PGlite, and on PostgreSQL with TEST_DATABASE_URL.
setDefaultTimeout(120_000)

const SYNCED = '[00:00.50] Morning comes\n[00:01.25] And the light'
let fake: FakeYoutube
let media: MediaServer
let sb: MusicServices
let ytdlp: FakeYtdlp
let lrclib: Lrclib
let dir: string
let t: YoutubeTestApp
let server: ReturnType<typeof serveTestApp>
let base: string
let channelId: string
let video: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tunefeed-phone-sequence-'))
  const tone = join(dir, 'tone.mp3')
  ;[fake, media, sb] = await Promise.all([startTestFake(), startMediaServer(), startMusicServices(), makeTone(tone, 30)])
  media.addFile('tone.mp3', tone)
  lrclib = startLrclib()
  lrclib.tracks.set('The Dawn|First Light', { instrumental: false, plainLyrics: 'Morning comes\nAnd the light', syncedLyrics: SYNCED })
  const channel = fake.channel('@star-lab')
  channelId = channel.id
  video = channel.uploads.filter((id) => fake.videos.get(id)!.kind === 'video')[0]!
  sb.segments.set(video, [{ category: 'sponsor', segment: [1, 3] }])
  ytdlp = startFakeYtdlp({ urls: Object.fromEntries(channel.uploads.map((id) => [watchUrl(id), `${media.url}/files/tone.mp3`])) })
  t = await createYoutubeTestApp(fake, {
    YTDLP_PATH: ytdlp.path,
    SPONSORBLOCK_URL: sb.sbUrl,
    LYRICS_URL: lrclib.url,
    FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com',
  })
  server = serveTestApp(t)
  base = server.url.toString()
}, 120_000)
afterAll(async () => {
  server?.stop(true)
  await t?.close()
  await media?.stop()
  await sb?.stop()
  await lrclib?.stop()
  await fake?.stop()
  ytdlp?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** What ffprobe reads of an answer's bytes: codec and bit rate (bit/s). */
async function probe(bytes: ArrayBuffer) {
  const path = join(dir, `probe-${crypto.randomUUID()}`)
  await Bun.write(path, bytes)
  const out = await new Response(
    Bun.spawn(['ffprobe', '-v', 'error', '-show_entries', 'stream=codec_name,bit_rate:format=bit_rate', '-of', 'json', path], { stdout: 'pipe' }).stdout,
  ).json()
  rmSync(path, { force: true })
  return { codec: out.streams[0].codec_name as string, bitRate: Number(out.streams[0].bit_rate ?? out.format.bit_rate) }
}

test('sign in with the app password, getPodcasts, stream an episode, createBookmark, the web player resumes there; lyrics looked up; 64 kbit/s', async () => {
  const { client, email } = await quickUser(t)
  // the person's podcast and a finished music job (its lyrics looked up when it finished)
  expect((await client.put(`/api/youtube/subscriptions/user?channel_id=@star-lab`)).status).toBe(200)
  await t.jobs.drain()
  expect((await client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 1 })).status).toBe(200)
  const m = await testMedia()
  const made = await postForm(client, '/api/music/jobs/create', musicForm({ title: 'First Light', artist: 'The Dawn', album: 'Morning' }, { path: m.mp3 }))
  expect(made.status).toBe(201)
  const jobId = ((await made.json()) as { id: string }).id
  await t.jobs.drain()
  const job = (await listJobs(client)).jobs.find((j) => j.id === jobId)!
  expect(job.completed).toBeTruthy()
  expect(job.lyrics).toEqual({ synced: true, source: 'lookup' })

  // 1. sign in as a player does: the app password, salted token
  const { password } = (await (await client.request('/api/auth/subsonic', { method: 'POST' })).json()) as { password: string }
  const api = new SubsonicAPI({ url: base, auth: { username: email, password } })
  expect((await api.ping()).status).toBe('ok')
  const extensions = (await api.getOpenSubsonicExtensions()).openSubsonicExtensions.map((e) => e.name)
  for (const name of ['songLyrics', 'transcodeOffset', 'indexBasedQueue']) expect(extensions).toContain(name)

  // 2. getPodcasts: the channel with its one episode, fetched and cut (30 s − 2 s)
  const { podcasts } = await api.getPodcasts({ includeEpisodes: true })
  const channel = podcasts.channel!.find((c) => c.id === `pc-${channelId}`)!
  const episode = channel.episode!.find((e) => e.id === `pe-${video}`)!
  expect(episode).toMatchObject({ status: 'completed', streamId: `ps-${video}`, contentType: 'audio/mpeg', suffix: 'mp3' })
  expect(episode.duration).toBe(28)

  // 3. stream it: the episode's file, byte for byte, through the client's own URL
  const file = readFileSync(join(episodeDir(t.ctx), readdirSync(episodeDir(t.ctx)).find((f) => f.startsWith(`${video}.`))!))
  const streamed = await api.stream({ id: episode.streamId! })
  expect(streamed.status).toBe(200)
  expect(streamed.headers.get('content-type')).toBe('audio/mpeg')
  expect(Buffer.from(await streamed.arrayBuffer()).equals(file)).toBe(true)

  // 4. createBookmark 10 s into the file: 12 s into the video (1-3 s were cut)
  await api.createBookmark({ id: episode.id, position: 10_000, comment: 'on the bus' })
  const marks = (await api.getBookmarks()).bookmarks.bookmark!
  expect(marks.map((b) => [b.entry.id, b.position, b.comment])).toEqual([[episode.id, 10_000, 'on the bus']])

  // 5. the web player's saved position, read by the same GET it makes before it starts a video
  // (tests/e2e/videos-listen.test.ts checks that it resumes from it), is the bookmark in the video's time
  const saved = (await (await client.get(`/api/youtube/videos/${video}/progress`)).json()) as { playedSeconds: number; duration: number }
  expect(saved.playedSeconds).toBeCloseTo(12, 1)
  expect(saved.duration).toBeGreaterThan(20)

  // 6. getLyricsBySongId on the looked-up track: synced lines with their times in ms
  const lyrics = ((await api.getLyricsBySongId({ id: `tr-${jobId}` })) as Json).lyricsList.structuredLyrics
  expect(lyrics).toEqual([
    {
      lang: 'und',
      synced: true,
      displayArtist: 'The Dawn',
      displayTitle: 'First Light',
      offset: 0,
      line: [
        { start: 500, value: 'Morning comes' },
        { start: 1250, value: 'And the light' },
      ],
    },
  ])
  expect(lrclib.requests.filter((u) => u.searchParams.get('track_name') === 'First Light').length).toBe(1)

  // 7. stream the song at 64 kbit/s: transcoded on the fly, MP3 at 64 kbit/s
  const low = await api.stream({ id: `tr-${jobId}`, maxBitRate: 64 })
  expect(low.status).toBe(200)
  expect(low.headers.get('content-type')).toBe('audio/mpeg')
  const info = await probe(await low.arrayBuffer())
  expect(info.codec).toBe('mp3')
  expect(Math.round(info.bitRate / 1000)).toBe(64)
})
