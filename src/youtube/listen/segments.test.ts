import { afterAll, beforeAll, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { Client } from '../../../tests/support/app.ts'
import { expectError } from '../../../tests/support/http.ts'
import { startMusicServices, type MusicServices } from '../../../tests/support/music-services.ts'
import { quickUser, startYoutubeTestApp, type YoutubeTestApp } from '../../../tests/support/youtube.ts'
import { forgetSegments } from './segments.ts'

// Segments through the SponsorBlock stand-in (hash-prefix API) for a followed channel's videos.
let t: YoutubeTestApp
let sb: MusicServices
let a: Awaited<ReturnType<typeof quickUser>>
let video: string
let other: string

beforeAll(async () => {
  sb = await startMusicServices()
  t = await startYoutubeTestApp({ SPONSORBLOCK_URL: sb.sbUrl, FETCH_ALLOW_HOSTS: '127.0.0.1' })
  a = await quickUser(t)
  expect((await a.client.put('/api/youtube/subscriptions/user?channel_id=@tiny-kitchen')).status).toBe(200)
  await t.jobs.drain()
  ;[video, other] = t.fake.channel('@tiny-kitchen').uploads as [string, string]
  sb.segments.set(video!, [
    { category: 'sponsor', segment: [10, 20.5] },
    { category: 'intro', segment: [0, 4] },
    { category: 'filler', segment: [30, 31] },
  ])
}, 60_000)
afterAll(async () => {
  await t.close()
  await sb.stop()
})

const get = async (c: Client, id: string) => {
  const res = await c.get(`/api/youtube/videos/${id}/segments`)
  expect(res.status).toBe(200)
  return (await res.json()) as { segments: { uuid: string; category: string; actionType: string; start: number; end: number }[]; unavailable: boolean }
}

test('segments by hash prefix with the user action; the stand-in never sees the plain id; cached', async () => {
  sb.sbRequests.length = 0
  const first = await get(a.client, video)
  expect(first.unavailable).toBe(false)
  // defaults: sponsor skip, intro and filler off
  expect(first.segments).toEqual([{ uuid: expect.stringMatching(/^[0-9a-f]{64}$/), category: 'sponsor', actionType: 'skip', start: 10, end: 20.5 }])
  const prefix = new Bun.CryptoHasher('sha256').update(video).digest('hex').slice(0, 4)
  expect(sb.sbRequests).toHaveLength(1)
  const asked = new URL(sb.sbRequests[0]!, 'http://x')
  expect(asked.pathname).toBe(`/sb/api/skipSegments/${prefix}`)
  expect(JSON.parse(asked.searchParams.get('categories')!)).toEqual(['sponsor', 'selfpromo', 'interaction', 'intro', 'outro', 'preview', 'filler', 'music_offtopic'])
  // the user's choices apply to the cached lookup: no new request
  expect((await a.client.put('/api/youtube/sponsorblock', { categories: { intro: 'show', filler: 'mute', sponsor: 'off' } })).status).toBe(200)
  const second = await get(a.client, video)
  expect(second.segments.map((s) => [s.category, s.actionType, s.start])).toEqual([
    ['intro', 'show', 0],
    ['filler', 'mute', 30],
  ])
  expect(sb.sbRequests).toHaveLength(1)
  // a video without segments: [] and available
  expect(await get(a.client, other)).toEqual({ segments: [], unavailable: false })
  expect(sb.sbRequests).toHaveLength(2)
  for (const r of sb.sbRequests) {
    expect(r).not.toContain(video)
    expect(r).not.toContain(other)
  }
})

test('a lookup older than the TTL is asked again', async () => {
  await get(a.client, video)
  const before = sb.sbRequests.length
  await t.ctx.db.execute(sql`update youtube_segment_cache set fetched_at = now() - interval '7 hours'`)
  await get(a.client, video)
  expect(sb.sbRequests.length).toBe(before + 1)
})

test('SponsorBlock down: [] and unavailable, not cached', async () => {
  await forgetSegments(t.ctx, video)
  sb.sponsorBlockDown = true
  try {
    expect(await get(a.client, video)).toEqual({ segments: [], unavailable: true })
  } finally {
    sb.sponsorBlockDown = false
  }
  expect((await get(a.client, video)).segments.length).toBeGreaterThan(0)
})

test('SponsorBlock unreachable (nothing listening): unavailable', async () => {
  const t2 = await startYoutubeTestApp({ SPONSORBLOCK_URL: 'http://127.0.0.1:9/sb', FETCH_ALLOW_HOSTS: '127.0.0.1' })
  try {
    const u = await quickUser(t2)
    expect((await u.client.put('/api/youtube/subscriptions/user?channel_id=@tiny-kitchen')).status).toBe(200)
    await t2.jobs.drain()
    expect(await get(u.client, t2.fake.channel('@tiny-kitchen').uploads[0]!)).toEqual({ segments: [], unavailable: true })
  } finally {
    await t2.close()
  }
}, 60_000)

test('unknown video 404; anonymous 401', async () => {
  await expectError(a.client.get('/api/youtube/videos/zzzzzzzzzzz/segments'), 404, 'Youtube video not found.')
  await expectError(a.client.get('/api/youtube/videos/not-a-video-id/segments'), 404, 'Youtube video not found.')
  await expectError(new Client(t).get(`/api/youtube/videos/${video}/segments`), 401, 'Unauthorized')
})
