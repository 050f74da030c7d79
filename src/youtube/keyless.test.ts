import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { FakeYoutube } from '../../scripts/fake-youtube.ts'
import { expectError } from '../../tests/support/http.ts'
import { ledgerUnits, quickUser, startTestFake, createYoutubeTestApp, type YoutubeTestApp } from '../../tests/support/youtube.ts'
import { youtubeMode } from './client.ts'
import { refreshAllChannels } from './jobs.ts'
import type { ChannelJson } from './queries/channels.ts'
import type { VideoJson } from './queries/feed.ts'

// Without YOUTUBE_API_KEY (the fake's world without a key): channels from their public
// pages, videos from their Atom feeds, no API call and no unit spent, from a subscription
// to a new upload appearing in the list.
let fake: FakeYoutube
let t: YoutubeTestApp
let user: Awaited<ReturnType<typeof quickUser>>

beforeAll(async () => {
  fake = await startTestFake({ apiKey: '' })
  t = await createYoutubeTestApp(fake)
  user = await quickUser(t)
}, 60_000)
afterAll(async () => {
  await t.close()
  await fake.stop()
})

const list = async (query: string): Promise<{ videos: VideoJson[]; totalPages: number }> => {
  const res = await user.client.get(`/api/youtube/videos/list?${query}`)
  expect(res.status).toBe(200)
  return res.json()
}
const noApi = () => {
  expect(fake.calls).toEqual({})
  expect(fake.units).toBe(0)
}

describe('keyless mode', () => {
  test('the mode follows the key', () => {
    expect(youtubeMode(t.ctx.env)).toBe('feed')
    expect(youtubeMode({ YOUTUBE_API_KEY: 'k' })).toBe('api')
  })

  test('subscribe by @handle, id or channel URL: resolved from the channel page; the latest 15 from the feed, then each new one', async () => {
    const motors = fake.channel('@retro-motors')
    const res = await user.client.put('/api/youtube/subscriptions/user?channel_id=@Retro-Motors')
    expect(res.status).toBe(200)
    const channel = (await res.json()) as ChannelJson
    expect(channel).toMatchObject({ id: motors.id, title: 'Retro Motors' })
    expect(channel.thumbnail).toBe(`${fake.url}/channel-art/${motors.id}.svg?s=900`)
    const star = fake.channel('@star-lab')
    expect((await user.client.put(`/api/youtube/subscriptions/user?channel_id=${encodeURIComponent(`https://www.youtube.com/channel/${star.id}`)}`)).status).toBe(200)
    const kitchen = fake.channel('@tiny-kitchen')
    expect((await user.client.put(`/api/youtube/subscriptions/user?channel_id=${kitchen.id}`)).status).toBe(200)
    await expectError(user.client.put('/api/youtube/subscriptions/user?channel_id=@no-such-channel'), 400, 'Channel not found.')
    expect(fake.pageRequests).toBe(4)
    await t.jobs.drain()

    // 15 each from the two long channels, all 12 of the short one, newest first
    const all = await list('per_page=100')
    expect(all.videos).toHaveLength(15 + 15 + 12)
    expect(all.videos.filter((v) => v.channel.id === motors.id).map((v) => v.id)).toEqual(motors.uploads.slice(0, 15))
    const first = all.videos.find((v) => v.id === motors.uploads[0])!
    const source = fake.videos.get(first.id)!
    expect(first).toMatchObject({ title: source.title, description: source.description, duration: null, kind: 'video', publishedAt: source.publishedAt.toISOString() })
    expect(first.thumbnail).toBe(`${fake.url}/vi/${first.id}/hqdefault.svg`)
    // Shorts from the feed's link form
    const shorts = star.uploads.slice(0, 15).filter((id) => fake.videos.get(id)!.kind === 'short')
    expect(all.videos.filter((v) => v.kind === 'short').map((v) => v.id)).toEqual(shorts)
    expect((await list('per_page=1&hide_shorts=true')).totalPages).toBe(42 - shorts.length)
    // no categories: the list is empty (and the web hides the filter)
    expect(await (await user.client.get('/api/youtube/videos/categories')).json()).toEqual({ categories: [] })
    noApi()
    expect(await ledgerUnits(t)).toBe(0)

    // a new upload: the next refresh adds just it, and it leads the list
    const [fresh] = fake.addUploads(motors.id, 1)
    const run = await refreshAllChannels({ ...t.ctx, jobs: undefined as never }, {})
    expect(run.outcomes.map((o) => o.status)).toEqual(['done', 'done', 'done'])
    const after = await list('per_page=100')
    expect(after.videos).toHaveLength(43)
    expect(after.videos[0]!.id).toBe(fresh!.id)
    noApi()
  })

  test('the user-channel sync needs a key; imports work from channel pages', async () => {
    await expectError(user.client.post('/api/youtube/channels/user', { channel_id: '@viewer-alice' }), 400, 'Needs a YouTube API key.')
    const ids = [fake.channel('@lofi-garden').id, fake.channel('@pixel-arcade').id, 'UCzzzzzzzzzzzzzzzzzzzzzz']
    const csv = ['Channel Id,Channel Url,Channel Title', ...ids.map((i) => `${i},http://www.youtube.com/channel/${i},Title`)].join('\r\n')
    const form = new FormData()
    form.set('file', new Blob([csv]), 'subscriptions.csv')
    const res = await user.client.request('/api/youtube/subscriptions/import', { method: 'POST', body: form })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ format: 'takeout-csv', added: 2, alreadyPresent: 0, notFound: 1 })
    await t.jobs.drain()
    expect((await list('per_page=1')).totalPages).toBe(43 + 15 + 15)
    noApi()
  })

  test('GET /mode says what works: feed without a key', async () => {
    expect(await (await user.client.get('/api/youtube/mode')).json()).toEqual({ mode: 'feed' })
  })

  test('a channel new to the app, opened by id: resolved from its public page (name and picture), not subscribed; a made-up id is 404', async () => {
    const quiet = fake.channel('@quiet-channel')
    const before = fake.pageRequests
    const res = await user.client.get(`/api/youtube/channels/${quiet.id}`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ id: quiet.id, title: 'Quiet Channel', thumbnail: expect.stringContaining(quiet.id), subscribed: false, updating: false })
    expect(fake.pageRequests).toBe(before + 1)
    // stored now: a second visit asks nobody
    expect((await user.client.get(`/api/youtube/channels/${quiet.id}`)).status).toBe(200)
    expect(fake.pageRequests).toBe(before + 1)
    await expectError(user.client.get('/api/youtube/channels/UCxxxxxxxxxxxxxxxxxxxxxx'), 404, 'Youtube Channel not found.')
    noApi()
  })
})
