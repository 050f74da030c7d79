import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FakeYoutube } from '../../../scripts/fake-youtube.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../../../tests/support/fake-ytdlp.ts'
import { expectError } from '../../../tests/support/http.ts'
import { makeTone, startMediaServer, type MediaServer } from '../../../tests/support/media.ts'
import { startMusicServices, type MusicServices } from '../../../tests/support/music-services.ts'
import { createYoutubeTestApp, quickUser, startTestFake, type YoutubeTestApp } from '../../../tests/support/youtube.ts'
import { ERROR_SENTENCES } from '../../tools/failure.ts'
import { watchUrl } from './audio.ts'

// Episodes that fail are visible (issue 37, Major 1): each one's state and reason, Retry for one
// or all, and the podcast's one sentence when every episode failed. The stand-in yt-dlp first
// answers every video's watch URL with YouTube's real "private video" text, then with a tone.
setDefaultTimeout(60_000)

let fake: FakeYoutube
let media: MediaServer
let sb: MusicServices
let ytdlp: FakeYtdlp
let dir: string
let t: YoutubeTestApp
let a: Awaited<ReturnType<typeof quickUser>>
let b: Awaited<ReturnType<typeof quickUser>>
let channelId: string
let plain: string[]

type Status = { videoId: string; title: string; publishedAt: string; state: string; error: string | null }
type Episodes = { episodes: Status[]; ready: number; fetching: number; failed: number; problem: string | null }

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tunefeed-episode-status-'))
  const tone = join(dir, 'tone.mp3')
  ;[fake, media, sb] = await Promise.all([startTestFake(), startMediaServer(), startMusicServices(), makeTone(tone, 4)])
  media.addFile('tone.mp3', tone)
  const channel = fake.channel('@star-lab')
  channelId = channel.id
  plain = channel.uploads.filter((id) => fake.videos.get(id)!.kind === 'video')
  ytdlp = startFakeYtdlp({ urls: Object.fromEntries(channel.uploads.map((id) => [watchUrl(id), 'http://127.0.0.1:9/fail/private'])) })
  t = await createYoutubeTestApp(fake, { YTDLP_PATH: ytdlp.path, SPONSORBLOCK_URL: sb.sbUrl, FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com' })
  a = await quickUser(t)
  b = await quickUser(t)
  for (const u of [a, b]) expect((await u.client.put('/api/youtube/subscriptions/user?channel_id=@star-lab')).status).toBe(200)
  await t.jobs.drain()
}, 60_000)
afterAll(async () => {
  await t?.close()
  await media?.stop()
  await sb?.stop()
  await fake?.stop()
  ytdlp?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** Runs every queued job; a job that fails for good (as the failing fetches do) throws out of the inline queue. */
async function drainAll() {
  for (let i = 0; i < 50 && (await t.jobs.counts()).waiting > 0; i++) await t.jobs.drain().catch(() => {})
}

const episodes = async (): Promise<Episodes> => {
  const res = await a.client.get(`/api/youtube/channels/${channelId}/podcast/episodes`)
  expect(res.status).toBe(200)
  return res.json()
}

test('episodes of a channel that is no podcast of the user: 404', async () => {
  await expectError(a.client.get(`/api/youtube/channels/${channelId}/podcast/episodes`), 404, 'Podcast not found.')
  await expectError(a.client.post(`/api/youtube/channels/${channelId}/podcast/retry`), 404, 'Podcast not found.')
  await expectError(a.client.post(`/api/youtube/podcasts/episodes/${plain[0]}/retry`), 404, 'Episode not found.')
})

test('every episode failed: each says why, the podcast says so once with what to do', async () => {
  expect((await a.client.put(`/api/youtube/channels/${channelId}/podcast`, { enabled: true, keepLast: 3 })).status).toBe(200)
  await drainAll()
  const now = await episodes()
  expect(now.episodes.map((e) => e.videoId)).toEqual(plain.slice(0, 3))
  for (const e of now.episodes) expect(e).toMatchObject({ state: 'failed', error: ERROR_SENTENCES.private })
  expect(now).toMatchObject({ ready: 0, fetching: 0, failed: 3 })
  expect(now.problem).toBe(`No episode of this podcast could be made. ${ERROR_SENTENCES.private} Once the cause is fixed, press Retry All.`)
  // the same counts and sentence with the feed (the switches and Account › Podcasts read them)
  const list = (await (await a.client.get('/api/youtube/podcasts')).json()) as { feeds: Record<string, unknown>[] }
  expect(list.feeds[0]).toMatchObject({ channelId, episodes: 0, keepLast: 3, ready: 0, fetching: 0, failed: 3, problem: now.problem })
})

test('Retry: one episode is made once the cause is gone; only the owner of the podcast may', async () => {
  for (const id of plain) ytdlp.mapUrl(watchUrl(id), `${media.url}/files/tone.mp3`)
  // B follows the channel but has no podcast of it
  await expectError(b.client.post(`/api/youtube/podcasts/episodes/${plain[0]}/retry`), 404, 'Episode not found.')
  await expectError(a.client.post('/api/youtube/podcasts/episodes/nonexistent/retry'), 404, 'Episode not found.')
  const res = await a.client.post(`/api/youtube/podcasts/episodes/${plain[0]}/retry`)
  expect(res.status).toBe(200)
  expect(await res.json()).toMatchObject({ videoId: plain[0], state: 'fetching', error: null })
  await t.jobs.drain()
  const now = await episodes()
  expect(now.episodes.map((e) => e.state)).toEqual(['ready', 'failed', 'failed'])
  // not all failed any more: no podcast sentence, the episodes say it
  expect(now).toMatchObject({ ready: 1, failed: 2, problem: null })
})

test('Retry all: every failed episode is made again', async () => {
  const res = await a.client.post(`/api/youtube/channels/${channelId}/podcast/retry`)
  expect(res.status).toBe(200)
  expect(((await res.json()) as Episodes).episodes.map((e) => e.state)).toEqual(['ready', 'fetching', 'fetching'])
  await t.jobs.drain()
  expect(await episodes()).toMatchObject({ ready: 3, fetching: 0, failed: 0, problem: null })
  const list = (await (await a.client.get('/api/youtube/podcasts')).json()) as { feeds: Record<string, unknown>[] }
  expect(list.feeds[0]).toMatchObject({ episodes: 3, ready: 3 })
})
