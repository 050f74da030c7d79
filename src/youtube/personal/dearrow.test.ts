import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startFakeDearrow, THUMB_PNG, thumbnail, title, type FakeDearrow } from '../../../tests/support/dearrow.ts'
import { expectError } from '../../../tests/support/http.ts'
import { createYoutubeTestApp, quickUser, startTestFake, type YoutubeTestApp } from '../../../tests/support/youtube.ts'
import type { FakeYoutube } from '../../../scripts/fake-youtube.ts'
import type { VideoJson } from '../queries/feed.ts'
import { brandingOf, resetDearrowBackoff, stripFormatMarkers } from './dearrow.ts'
import { clearDearrowThumbnails } from './dearrow-thumbs.ts'
import { youtubeDearrowCache } from './tables.ts'
import { eq } from 'drizzle-orm'

// DeArrow against a stand-in with the real response shapes: off by default and then nothing is
// sent; titles by hash prefix only (never the id), DeArrow's choice rule, the cache, thumbnails
// served same-origin, DeArrow down.
let t: YoutubeTestApp
let fake: FakeYoutube
let dearrow: FakeDearrow
let user: Awaited<ReturnType<typeof quickUser>>
let other: Awaited<ReturnType<typeof quickUser>>
let videos: (VideoJson & { dearrow: { title: string | null; thumbnail: string | null } | null })[]

beforeAll(async () => {
  fake = await startTestFake()
  dearrow = startFakeDearrow()
  t = await createYoutubeTestApp(fake, { FETCH_ALLOW_HOSTS: '127.0.0.1', DEARROW_URL: dearrow.url, DEARROW_THUMB_URL: dearrow.thumbUrl })
  user = await quickUser(t)
  other = await quickUser(t)
  for (const u of [user, other]) expect((await u.client.put('/api/youtube/subscriptions/user?channel_id=@tiny-kitchen')).status).toBe(200)
  await t.jobs.drain()
  videos = (await (await user.client.get('/api/youtube/videos/list')).json()).videos
  const [a, b, c, d] = videos
  dearrow.branding.set(a!.id, { titles: [title('>iPhone tips that >NASA uses', 3), title('Worse', 1)], thumbnails: [thumbnail(12.5, 2)] })
  // the first title has negative votes and is not locked: the next one with votes ≥ 0 wins
  dearrow.branding.set(b!.id, { titles: [title('Downvoted', -1), title('Locked title', -2, true), title('Later', 5)], thumbnails: [] })
  // the best title is the original one: nothing replaces it
  dearrow.branding.set(c!.id, { titles: [title(c!.title, 4, false, true)], thumbnails: [thumbnail(null, 1, false, true)] })
  dearrow.branding.set(d!.id, { titles: [title('All downvoted', -1)], thumbnails: [thumbnail(3, -1)] })
}, 60_000)
afterAll(async () => {
  await t?.close()
  await fake?.stop()
  dearrow?.stop()
})

const feed = async (c: typeof user.client) => (await (await c.get('/api/youtube/videos/list')).json()).videos as typeof videos

describe('DeArrow', () => {
  test('the rule and the markers, as DeArrow clients apply them', () => {
    expect(stripFormatMarkers('>iPhone tips that >NASA uses')).toBe('iPhone tips that NASA uses')
    expect(stripFormatMarkers('5 > 3 is >TRUE')).toBe('5 > 3 is TRUE')
    expect(brandingOf(undefined)).toEqual({ title: null, thumbnailTime: null })
    expect(brandingOf({ titles: [{ title: 'A', votes: -1, locked: true }] })).toEqual({ title: 'A', thumbnailTime: null })
  })

  test('off by default: every video has dearrow null and nothing is sent', async () => {
    expect(await (await user.client.get('/api/youtube/dearrow')).json()).toEqual({ mode: 'off' })
    expect((await feed(user.client)).every((v) => v.dearrow === null)).toBe(true)
    const one = await (await user.client.get(`/api/youtube/videos/${videos[0]!.id}`)).json()
    expect(one.dearrow).toBeNull()
    expect(dearrow.requests).toEqual([])
  })

  test('bad mode: 422 naming mode', async () => {
    expect(await expectError(user.client.put('/api/youtube/dearrow', { mode: 'on' }), 422)).toContain('mode')
    expect(await expectError(user.client.put('/api/youtube/dearrow', {}), 422)).toContain('mode')
  })

  test('titles: looked up by hash prefix only, DeArrow rule, cached; no thumbnails, no thumbnail service', async () => {
    expect(await (await user.client.put('/api/youtube/dearrow', { mode: 'titles' })).json()).toEqual({ mode: 'titles' })
    const shown = await feed(user.client)
    const byId = new Map(shown.map((v) => [v.id, v]))
    expect(byId.get(videos[0]!.id)!.dearrow).toEqual({ title: 'iPhone tips that NASA uses', thumbnail: null })
    expect(byId.get(videos[1]!.id)!.dearrow).toEqual({ title: 'Locked title', thumbnail: null })
    expect(byId.get(videos[2]!.id)!.dearrow).toBeNull()
    expect(byId.get(videos[3]!.id)!.dearrow).toBeNull()
    expect(byId.get(videos[0]!.id)!.title).toBe(videos[0]!.title) // the original is kept beside it
    expect(dearrow.requests.length).toBeGreaterThan(0)
    expect(dearrow.leaks).toEqual([])
    for (const r of dearrow.requests) {
      expect(r).toMatch(/^\/api\/branding\/[0-9a-f]{4}$/)
      for (const v of videos) expect(r).not.toContain(v.id)
    }
    // cached: a second read asks nothing
    const before = dearrow.requests.length
    await feed(user.client)
    const page = await (await user.client.get(`/api/youtube/videos/${videos[0]!.id}`)).json()
    expect(page.dearrow).toEqual({ title: 'iPhone tips that NASA uses', thumbnail: null })
    expect(dearrow.requests.length).toBe(before)
    // the thumbnail route is closed in this mode
    await expectError(user.client.request(`/api/youtube/videos/${videos[0]!.id}/dearrow-thumbnail`), 404)
    // another user (off) still sees none
    expect((await feed(other.client)).every((v) => v.dearrow === null)).toBe(true)
  })

  test('titles_thumbnails: a same-origin thumbnail the server fetched, cached', async () => {
    await user.client.put('/api/youtube/dearrow', { mode: 'titles_thumbnails' })
    const shown = await feed(user.client)
    const a = shown.find((v) => v.id === videos[0]!.id)!
    expect(a.dearrow).toEqual({ title: 'iPhone tips that NASA uses', thumbnail: `/api/youtube/videos/${a.id}/dearrow-thumbnail?t=12.5` })
    expect(shown.find((v) => v.id === videos[1]!.id)!.dearrow).toEqual({ title: 'Locked title', thumbnail: null })
    clearDearrowThumbnails()
    const res = await user.client.request(a.dearrow!.thumbnail!)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/png')
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(THUMB_PNG)
    const thumbCalls = dearrow.requests.filter((r) => r.startsWith('/api/v1/getThumbnail'))
    expect(thumbCalls).toEqual([`/api/v1/getThumbnail?videoID=${a.id}&time=12.5`])
    expect((await user.client.request(a.dearrow!.thumbnail!)).status).toBe(200)
    expect(dearrow.requests.filter((r) => r.startsWith('/api/v1/getThumbnail'))).toHaveLength(1)
    // a video without a chosen thumbnail, another user with thumbnails off, an unknown video
    await expectError(user.client.request(`/api/youtube/videos/${videos[1]!.id}/dearrow-thumbnail`), 404)
    await expectError(other.client.request(a.dearrow!.thumbnail!), 404)
    await expectError(user.client.request('/api/youtube/videos/AAAAAAAAAAA/dearrow-thumbnail'), 404)
  })

  test('DeArrow down: dearrow null, nothing cached, the feed still answers', async () => {
    const id = videos[4]!.id
    dearrow.branding.set(id, { titles: [title('Comes later', 1)], thumbnails: [] })
    // its earlier look-up (nothing then) expires
    await t.ctx.db.delete(youtubeDearrowCache).where(eq(youtubeDearrowCache.videoId, id))
    dearrow.down = true
    resetDearrowBackoff()
    const shown = await feed(user.client)
    expect(shown.find((v) => v.id === id)!.dearrow).toBeNull()
    expect(shown.find((v) => v.id === videos[0]!.id)!.dearrow?.title).toBe('iPhone tips that NASA uses') // from the cache
    dearrow.down = false
    resetDearrowBackoff()
    expect((await feed(user.client)).find((v) => v.id === id)!.dearrow).toEqual({ title: 'Comes later', thumbnail: null })
  })
})
