import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import type { FakeYoutube } from '../../scripts/fake-youtube.ts'
import { Client } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { createYoutubeTestApp, resetYoutube, ledgerUnits, quickUser, startTestFake, type YoutubeTestApp } from '../../tests/support/youtube.ts'
import type { ChannelJson } from './queries/channels.ts'
import type { VideoJson } from './queries/feed.ts'
import { youtubeUserChannels } from './tables.ts'

// One app for the file: user A follows three channels, B follows one.
let fake: FakeYoutube
let t: YoutubeTestApp
let a: Awaited<ReturnType<typeof quickUser>>
let b: Awaited<ReturnType<typeof quickUser>>
const followedByA = ['@tiny-kitchen', '@star-lab', '@pixel-arcade']

beforeAll(async () => {
  fake = await startTestFake()
  t = await createYoutubeTestApp(fake)
  a = await quickUser(t)
  b = await quickUser(t)
  for (const h of followedByA) expect((await a.client.put(`/api/youtube/subscriptions/user?channel_id=${h}`)).status).toBe(200)
  expect((await b.client.put('/api/youtube/subscriptions/user?channel_id=@retro-motors')).status).toBe(200)
  await t.jobs.drain()
}, 60_000)
afterAll(async () => {
  await t.close()
  await fake.stop()
})
afterEach(() => resetYoutube(t))

type VideoList = { videos: VideoJson[]; totalPages: number }
const list = async (c: Client, query = ''): Promise<VideoList> => {
  const res = await c.get(`/api/youtube/videos/list${query}`)
  expect(res.status).toBe(200)
  return res.json()
}
/** The first of the fake's generated channels (not one of its fixed ones). */
const generatedHandle = () => [...fake.channels.values()].find((c) => c.handle.endsWith('-0'))!.handle
const uploadsOf = (h: string) => fake.channel(h).uploads
const newestFirst = (ids: string[]) =>
  [...ids].sort((x, y) => {
    const d = fake.videos.get(y)!.publishedAt.getTime() - fake.videos.get(x)!.publishedAt.getTime()
    return d || (y > x ? 1 : -1)
  })

describe('auth and input', () => {
  test('every video-area route answers 401 to anonymous callers, before validation', async () => {
    const anon = new Client(t)
    for (const [method, path] of [
      ['GET', '/api/youtube/subscriptions/list?page=0'],
      ['PUT', '/api/youtube/subscriptions/user'],
      ['DELETE', '/api/youtube/subscriptions/user'],
      ['POST', '/api/youtube/subscriptions/import'],
      ['GET', '/api/youtube/channels/user'],
      ['POST', '/api/youtube/channels/user'],
      ['GET', '/api/youtube/channels/UCxxxxxxxxxxxxxxxxxxxxxx'],
      ['GET', '/api/youtube/videos/categories'],
      ['GET', '/api/youtube/videos/list'],
      ['GET', '/api/youtube/videos/abcdefghijk'],
      ['PUT', '/api/youtube/videos/abcdefghijk/like'],
      ['PUT', '/api/youtube/videos/abcdefghijk/progress'],
      ['GET', '/api/youtube/channel/listen'],
    ] as const) {
      await expectError(anon.request(path, { method }), 401, 'Unauthorized')
    }
  })

  test('bad input is a 422 naming the field, never a 500', async () => {
    for (const query of ['?page=0', '?per_page=1000', '?page=x', '?video_categories=abc', '?liked_only=maybe', '?video_categories=1,,x']) {
      await expectError(a.client.get(`/api/youtube/videos/list${query}`), 422)
    }
    await expectError(a.client.get('/api/youtube/subscriptions/list?per_page=0'), 422, /per_page/)
    await expectError(a.client.put('/api/youtube/subscriptions/user'), 422, 'channel_id: Required')
    await expectError(a.client.put('/api/youtube/subscriptions/user?channel_id='), 422, /channel_id/)
    await expectError(a.client.post('/api/youtube/channels/user', {}), 422, 'channel_id: Required')
    await expectError(a.client.post('/api/youtube/channels/user', { channel_id: 42 }), 422, /channel_id/)
    await expectError(a.client.get(`/api/youtube/videos/${uploadsOf('@tiny-kitchen')[0]}?related_videos_length=-1`), 422)
    await expectError(a.client.put(`/api/youtube/videos/${uploadsOf('@tiny-kitchen')[0]}/progress`, { playedSeconds: 'x', duration: 3 }), 422, /playedSeconds/)
    await expectError(a.client.put(`/api/youtube/videos/${uploadsOf('@tiny-kitchen')[0]}/progress`, { playedSeconds: 50, duration: 30 }), 422, /playedSeconds/)
  })
})

describe('subscriptions', () => {
  test('list: active ones by title, paged', async () => {
    const res = await a.client.get('/api/youtube/subscriptions/list?page=1&per_page=2')
    const body = (await res.json()) as { channels: ChannelJson[]; totalPages: number }
    expect(body.totalPages).toBe(2)
    expect(body.channels.map((c) => c.title)).toEqual(['Pixel Arcade', 'Star Lab'])
    expect(body.channels[0]).toEqual({
      id: fake.channel('@pixel-arcade').id,
      title: 'Pixel Arcade',
      thumbnail: expect.stringContaining(fake.url),
      updating: false,
      subscribed: true,
    })
    const page2 = await (await a.client.get('/api/youtube/subscriptions/list?page=2&per_page=2')).json()
    expect(page2.channels.map((c: ChannelJson) => c.title)).toEqual(['Tiny Kitchen'])
    const empty = await quickUser(t)
    expect(await (await empty.client.get('/api/youtube/subscriptions/list')).json()).toEqual({ channels: [], totalPages: 0 })
  })

  test('add by id, @handle, bare handle or URL; a stored channel costs no unit; unknown is 400', async () => {
    const c = await quickUser(t)
    const arcade = fake.channel('@pixel-arcade')
    const units = await ledgerUnits(t)
    for (const ref of [arcade.id, '@pixel-arcade', 'Pixel-Arcade', `https://www.youtube.com/channel/${arcade.id}`, 'https://www.youtube.com/@pixel-arcade']) {
      const res = await c.client.put(`/api/youtube/subscriptions/user?channel_id=${encodeURIComponent(ref)}`)
      expect(await res.json()).toEqual({ id: arcade.id, title: 'Pixel Arcade', thumbnail: expect.any(String), subscribed: true, updating: false })
    }
    expect(await ledgerUnits(t)).toBe(units)
    // a channel not stored yet is looked up: 1 unit
    const res = await c.client.put(`/api/youtube/subscriptions/user?channel_id=${generatedHandle()}`)
    expect(res.status).toBe(200)
    expect(await ledgerUnits(t)).toBe(units + 1)
    await expectError(c.client.put('/api/youtube/subscriptions/user?channel_id=@no-such-channel'), 400, 'Channel not found.')
    await expectError(c.client.put('/api/youtube/subscriptions/user?channel_id=UCxxxxxxxxxxxxxxxxxxxxxx'), 400, 'Channel not found.')
    await expectError(c.client.put(`/api/youtube/subscriptions/user?channel_id=${encodeURIComponent('<script>')}`), 400, 'Channel not found.')
    // a refresh was queued for each channel (once: the queue drops duplicates)
    expect(t.jobs.waiting.filter((j) => j.def.name === 'youtube.refreshChannel').length).toBeGreaterThanOrEqual(1)
    await t.jobs.drain()
  })

  test('API lookups are limited per user: one account cannot spend the quota of all', async () => {
    const c = await quickUser(t)
    for (let i = 0; i < 100; i++) {
      expect((await c.client.put(`/api/youtube/subscriptions/user?channel_id=@nobody-${i}`)).status).toBe(400)
    }
    const res = await c.client.put('/api/youtube/subscriptions/user?channel_id=@nobody-else')
    await expectError(res.clone(), 429)
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
    // stored channels need no lookup and stay available
    expect((await c.client.put('/api/youtube/subscriptions/user?channel_id=@tiny-kitchen')).status).toBe(200)
    // another user is not affected
    expect((await (await quickUser(t)).client.put('/api/youtube/subscriptions/user?channel_id=@nobody-else')).status).toBe(400)
    t.jobs.waiting = []
  })

  test('remove: 200, then 404; another user keeps theirs', async () => {
    const c = await quickUser(t)
    const kitchen = fake.channel('@tiny-kitchen')
    await c.client.put(`/api/youtube/subscriptions/user?channel_id=${kitchen.id}`)
    const res = await c.client.delete(`/api/youtube/subscriptions/user?channel_id=${kitchen.id}`)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ id: kitchen.id, subscribed: false })
    await expectError(c.client.delete(`/api/youtube/subscriptions/user?channel_id=${kitchen.id}`), 404, 'Subscription not found.')
    await expectError(c.client.delete('/api/youtube/subscriptions/user?channel_id=@never-heard-of'), 404, 'Subscription not found.')
    const mine = await (await a.client.get('/api/youtube/subscriptions/list')).json()
    expect(mine.channels.map((x: ChannelJson) => x.id)).toContain(kitchen.id)
    // and back again
    expect((await c.client.put(`/api/youtube/subscriptions/user?channel_id=${kitchen.id}`)).status).toBe(200)
  })
})

describe('user channel', () => {
  test('get, set (sync queued), and the 24-hour rule', async () => {
    const c = await quickUser(t)
    await expectError(c.client.get('/api/youtube/channels/user'), 404, 'Youtube Channel not found.')
    await expectError(c.client.post('/api/youtube/channels/user', { channel_id: '@no-such-viewer' }), 400, 'Youtube Channel not found.')
    const alice = fake.channel('@viewer-alice')
    const set = await c.client.post('/api/youtube/channels/user', { channel_id: '@viewer-alice' })
    expect(set.status).toBe(200)
    expect(await set.json()).toEqual({ id: alice.id })
    expect(t.jobs.waiting.map((j) => [j.def.name, j.payload])).toContainEqual(['youtube.syncSubscriptions', { userId: c.id }])
    const got = await (await c.client.get('/api/youtube/channels/user')).json()
    expect(got).toMatchObject({ id: alice.id, syncedAt: null, syncError: null })

    // within 24 hours: the same channel is fine, another one is refused without spending quota
    const units = await ledgerUnits(t)
    expect((await c.client.post('/api/youtube/channels/user', { channel_id: alice.id })).status).toBe(200)
    expect((await c.client.post('/api/youtube/channels/user', { channel_id: '@viewer-alice' })).status).toBe(200)
    await expectError(c.client.post('/api/youtube/channels/user', { channel_id: '@viewer-bob' }), 400, 'Must wait 24 hours before updating channel id.')
    expect(await ledgerUnits(t)).toBe(units)

    // a day later it may change
    await t.ctx.db
      .update(youtubeUserChannels)
      .set({ updatedAt: sql`now() - interval '25 hours'` })
      .where(eq(youtubeUserChannels.userId, c.id))
    const bob = fake.channel('@viewer-bob')
    expect(await (await c.client.post('/api/youtube/channels/user', { channel_id: '@viewer-bob' })).json()).toEqual({ id: bob.id })
    await expectError(c.client.post('/api/youtube/channels/user', { channel_id: '@viewer-alice' }), 400, 'Must wait 24 hours before updating channel id.')
    // B cannot see it
    await expectError(b.client.get('/api/youtube/channels/user'), 404, 'Youtube Channel not found.')
    t.jobs.waiting = []
  })

  test('channel by id', async () => {
    const kitchen = fake.channel('@tiny-kitchen')
    expect(await (await a.client.get(`/api/youtube/channels/${kitchen.id}`)).json()).toEqual({
      id: kitchen.id,
      title: 'Tiny Kitchen',
      thumbnail: expect.any(String),
      subscribed: true,
      updating: false,
    })
    expect(await (await b.client.get(`/api/youtube/channels/${kitchen.id}`)).json()).toMatchObject({ subscribed: false })
    await expectError(a.client.get('/api/youtube/channels/UCxxxxxxxxxxxxxxxxxxxxxx'), 404, 'Youtube Channel not found.')
    await expectError(a.client.get('/api/youtube/channels/whatever'), 404, 'Youtube Channel not found.')
    // a channel nobody here follows: looked up (one channels.list call) so its page has a name and picture
    const quiet = fake.channel('@quiet-channel')
    const res = await b.client.get(`/api/youtube/channels/${quiet.id}`)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ id: quiet.id, title: 'Quiet Channel', subscribed: false })
    expect(await (await b.client.get('/api/youtube/mode')).json()).toEqual({ mode: 'api' })
  })
})

describe('videos', () => {
  test('categories: named from the start, by name; the refresh job brings the full list', async () => {
    const before = (await (await a.client.get('/api/youtube/videos/categories')).json()).categories as { id: number; name: string }[]
    expect(before.length).toBeGreaterThan(0)
    expect(before.map((c) => c.name)).toEqual([...before.map((c) => c.name)].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)))
    const { refreshCategoriesJob } = await import('./jobs.ts')
    await t.ctx.jobs.enqueue(refreshCategoriesJob, {})
    await t.jobs.drain()
    const after = (await (await a.client.get('/api/youtube/videos/categories')).json()).categories as { id: number; name: string }[]
    expect(after).toHaveLength(32)
    expect(after[0]).toEqual({ id: 32, name: 'Action/Adventure' })
  })

  test('feed: the subscribed channels only, newest first, paged without overlap', async () => {
    const ids = newestFirst(followedByA.flatMap(uploadsOf))
    const first = await list(a.client, '?per_page=10')
    expect(first.totalPages).toBe(Math.ceil(ids.length / 10))
    expect(first.videos.map((v) => v.id)).toEqual(ids.slice(0, 10))
    const third = await list(a.client, '?per_page=10&page=3')
    expect(third.videos.map((v) => v.id)).toEqual(ids.slice(20, 30))
    const all = await list(a.client, '?per_page=100')
    expect(all.videos.map((v) => v.id)).toEqual(ids)
    const past = await list(a.client, `?per_page=10&page=${first.totalPages + 1}`)
    expect(past).toEqual({ videos: [], totalPages: first.totalPages })
    // the default page size is the spec's 48
    expect((await list(a.client)).videos).toHaveLength(Math.min(48, ids.length))

    const v = first.videos[0]!
    const source = fake.videos.get(v.id)!
    expect(v).toEqual({
      id: source.id,
      title: source.title,
      thumbnail: expect.stringContaining(`/vi/${source.id}/`),
      description: source.description,
      publishedAt: source.publishedAt.toISOString(),
      duration: 30,
      kind: 'video',
      category: { id: source.categoryId, name: expect.any(String) },
      channel: { id: source.channelId, title: fake.channels.get(source.channelId)!.title, thumbnail: expect.any(String) },
      liked: null,
      queued: null,
      watched: null,
      mediaUrl: `${fake.mediaUrl}/${source.id}.webm`,
      // DeArrow is off by default (docs/decisions/252)
      dearrow: null,
      kept: null,
    })
  })

  test('feed filters: categories, a channel (followed or not)', async () => {
    const ids = followedByA.flatMap(uploadsOf)
    const category = fake.videos.get(ids[0]!)!.categoryId
    const inCategory = newestFirst(ids.filter((id) => fake.videos.get(id)!.categoryId === category))
    const filtered = await list(a.client, `?per_page=100&video_categories=${category}`)
    expect(filtered.videos.map((v) => v.id)).toEqual(inCategory)
    expect((await list(a.client, `?per_page=2&video_categories=${category}`)).totalPages).toBe(Math.ceil(inCategory.length / 2))
    const other = fake.videos.get(ids.find((id) => fake.videos.get(id)!.categoryId !== category)!)!.categoryId
    const both = await list(a.client, `?per_page=100&video_categories=${category},${other}`)
    expect(both.videos).toHaveLength(ids.filter((id) => [category, other].includes(fake.videos.get(id)!.categoryId)).length)

    const motors = fake.channel('@retro-motors')
    const theirs = await list(a.client, `?per_page=100&channel_id=${motors.id}`)
    expect(theirs.videos.map((v) => v.id)).toEqual(newestFirst(motors.uploads))
    expect((await list(a.client, `?per_page=7&channel_id=${motors.id}`)).totalPages).toBe(Math.ceil(motors.uploads.length / 7))
    expect((await list(a.client, '?channel_id=UCxxxxxxxxxxxxxxxxxxxxxx')).videos).toEqual([])
  })

  test('like, queue and watch: idempotent, timestamps kept, errors, and private to their user', async () => {
    const [v1, v2, v3] = newestFirst(uploadsOf('@star-lab'))
    const motorsVideo = uploadsOf('@retro-motors')[0]! // a channel A does not follow
    const liked1 = await (await a.client.put(`/api/youtube/videos/${v1}/like`)).json()
    expect(liked1.liked).toBeString()
    const again = await (await a.client.put(`/api/youtube/videos/${v1}/like`)).json()
    expect(again.liked).toBe(liked1.liked)
    await a.client.put(`/api/youtube/videos/${motorsVideo}/like`)
    await a.client.put(`/api/youtube/videos/${v2}/like`)
    // liked: across all videos, by like time, newest first
    expect((await list(a.client, '?liked_only=true')).videos.map((v) => v.id)).toEqual([v2, motorsVideo, v1])
    expect(await list(a.client, '?liked_only=true&per_page=2&page=2')).toMatchObject({ totalPages: 2, videos: [{ id: v1 }] })

    for (const id of [v3, motorsVideo, v1]) await a.client.put(`/api/youtube/videos/${id}/queue`)
    await a.client.put(`/api/youtube/videos/${v3}/queue`)
    // queued: by queue time, oldest first
    expect((await list(a.client, '?queued_only=1')).videos.map((v) => v.id)).toEqual([v3, motorsVideo, v1])
    expect(await list(a.client, '?queued_only=true&liked_only=true')).toEqual({ videos: [expect.objectContaining({ id: motorsVideo }), expect.objectContaining({ id: v1 })], totalPages: 1 })
    const likedCategory = fake.videos.get(v2)!.categoryId
    const likedInCategory = [v2, motorsVideo, v1].filter((id) => fake.videos.get(id)!.categoryId === likedCategory)
    expect(await list(a.client, `?liked_only=true&per_page=1&video_categories=${likedCategory}`)).toMatchObject({ totalPages: likedInCategory.length })
    expect(await list(a.client, '?queued_only=true&per_page=2')).toMatchObject({ totalPages: 2 })

    const unq = await a.client.delete(`/api/youtube/videos/${motorsVideo}/queue`)
    expect((await unq.json()).queued).toBeNull()
    await expectError(a.client.delete(`/api/youtube/videos/${motorsVideo}/queue`), 404, 'Youtube video queue not found.')
    const unlike = await a.client.delete(`/api/youtube/videos/${v2}/like`)
    expect((await unlike.json()).liked).toBeNull()
    await expectError(a.client.delete(`/api/youtube/videos/${v2}/like`), 404, 'Youtube video like not found.')

    const w1 = await (await a.client.put(`/api/youtube/videos/${v1}/watch`)).json()
    const w2 = await (await a.client.put(`/api/youtube/videos/${v1}/watch`)).json()
    expect(w1.watched).toBeString()
    expect(w2.watched).toBe(w1.watched)

    for (const path of ['like', 'queue', 'watch'] as const) {
      await expectError(a.client.put(`/api/youtube/videos/zzzzzzzzzzz/${path}`), 404, 'Youtube video not found.')
      await expectError(a.client.put(`/api/youtube/videos/not-a-video-id/${path}`), 404, 'Youtube video not found.')
    }
    await expectError(a.client.delete('/api/youtube/videos/zzzzzzzzzzz/like'), 404, 'Youtube video not found.')

    // B sees none of A's marks
    expect((await list(b.client, '?liked_only=true')).videos).toEqual([])
    expect((await list(b.client, '?queued_only=true')).videos).toEqual([])
    const seenByB = await (await b.client.get(`/api/youtube/videos/${v1}`)).json()
    expect(seenByB).toMatchObject({ liked: null, queued: null, watched: null })
    const seenByA = await (await a.client.get(`/api/youtube/videos/${v1}`)).json()
    expect(seenByA).toMatchObject({ liked: liked1.liked, queued: expect.any(String), watched: w1.watched })
    await expectError(b.client.delete(`/api/youtube/videos/${v1}/like`), 404, 'Youtube video like not found.')
    // and B's feed holds only B's channel
    const bFeed = await list(b.client, '?per_page=100')
    expect(new Set(bFeed.videos.map((v) => v.channel.id))).toEqual(new Set([fake.channel('@retro-motors').id]))
  })

  test('a video with related videos: same category, itself excluded, newest first', async () => {
    const id = uploadsOf('@pixel-arcade')[0]!
    const source = fake.videos.get(id)!
    const res = await a.client.get(`/api/youtube/videos/${id}?related_videos_length=4`)
    const video = (await res.json()) as VideoJson & { relatedVideos: VideoJson[] }
    expect(video.id).toBe(id)
    const stored = new Set([...followedByA, '@retro-motors', generatedHandle()].flatMap((h) => fake.channel(h).uploads))
    const expected = newestFirst([...stored].filter((x) => x !== id && fake.videos.get(x)!.categoryId === source.categoryId)).slice(0, 4)
    expect(video.relatedVideos.map((v) => v.id)).toEqual(expected)
    expect(video.relatedVideos.every((v) => v.category.id === source.categoryId && v.id !== id)).toBe(true)
    // default 4; 0 gives none
    expect(((await (await a.client.get(`/api/youtube/videos/${id}`)).json()) as { relatedVideos: unknown[] }).relatedVideos).toHaveLength(4)
    expect(((await (await a.client.get(`/api/youtube/videos/${id}?related_videos_length=0`)).json()) as { relatedVideos: unknown[] }).relatedVideos).toEqual([])
    await expectError(a.client.get('/api/youtube/videos/zzzzzzzzzzz'), 404, 'Youtube video not found.')
    await expectError(a.client.get('/api/youtube/videos/..%2F..%2Fetc'), 404)
  })

  test('playback progress: saved per user and video, resumed anywhere', async () => {
    const id = uploadsOf('@tiny-kitchen')[1]!
    expect(await (await a.client.get(`/api/youtube/videos/${id}/progress`)).json()).toEqual({ playedSeconds: 0, duration: 0, updatedAt: null })
    const put = await a.client.put(`/api/youtube/videos/${id}/progress`, { playedSeconds: 12.5, duration: 30 })
    expect(await put.json()).toEqual({ playedSeconds: 12.5, duration: 30, updatedAt: expect.any(String) })
    await a.client.put(`/api/youtube/videos/${id}/progress`, { playedSeconds: 20, duration: 30 })
    expect(await (await a.client.get(`/api/youtube/videos/${id}/progress`)).json()).toMatchObject({ playedSeconds: 20, duration: 30 })
    // another device of the same user: a new session
    const { createSession, SESSION_COOKIE } = await import('../auth/session.ts')
    const other = new Client(t)
    other.cookie = `${SESSION_COOKIE}=${(await createSession(t.ctx.db, a.id)).token}`
    expect(await (await other.get(`/api/youtube/videos/${id}/progress`)).json()).toMatchObject({ playedSeconds: 20 })
    expect(await (await b.client.get(`/api/youtube/videos/${id}/progress`)).json()).toMatchObject({ playedSeconds: 0 })
    await expectError(a.client.put('/api/youtube/videos/zzzzzzzzzzz/progress', { playedSeconds: 1, duration: 2 }), 404, 'Youtube video not found.')
  })
})
