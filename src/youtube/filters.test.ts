import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Client } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { quickUser, startYoutubeTestApp, type YoutubeTestApp } from '../../tests/support/youtube.ts'
import type { VideoJson } from './queries/feed.ts'
import { titleQuery } from './queries/feed.ts'

// The list's filters hide_watched, hide_shorts, hide_live and q, alone and combined with
// categories, liked_only and a channel; each page's totalPages agrees with what it lists.
let t: YoutubeTestApp
let user: Awaited<ReturnType<typeof quickUser>>
let all: VideoJson[]
const followed = ['@star-lab', '@pixel-arcade', '@tiny-kitchen']

beforeAll(async () => {
  t = await startYoutubeTestApp()
  user = await quickUser(t)
  for (const h of followed) expect((await user.client.put(`/api/youtube/subscriptions/user?channel_id=${h}`)).status).toBe(200)
  await t.jobs.drain()
  all = await everything(user.client, '')
  // a few marks: watched and liked
  for (const v of all.filter((_, i) => i % 5 === 0)) expect((await user.client.put(`/api/youtube/videos/${v.id}/watch`)).status).toBe(200)
  for (const v of all.filter((_, i) => i % 3 === 0)) expect((await user.client.put(`/api/youtube/videos/${v.id}/like`)).status).toBe(200)
  all = await everything(user.client, '')
}, 60_000)
afterAll(() => t.close())

async function list(c: Client, query: string): Promise<{ videos: VideoJson[]; totalPages: number }> {
  const res = await c.get(`/api/youtube/videos/list?${query}`)
  expect(res.status).toBe(200)
  return res.json()
}
async function everything(c: Client, query: string) {
  return (await list(c, `per_page=100&${query}`)).videos
}

/** The list under `query` is exactly `all` filtered by `keep`, in the same order, and one-per-page counts it. */
async function expectFilter(query: string, keep: (v: VideoJson) => boolean) {
  const expected = all.filter(keep).map((v) => v.id)
  expect((await everything(user.client, query)).map((v) => v.id)).toEqual(expected)
  expect((await list(user.client, `per_page=1&${query}`)).totalPages).toBe(expected.length)
  return expected.length
}

const isLive = (v: VideoJson) => v.kind === 'live' || v.kind === 'upcoming'

describe('kind and duration', () => {
  test('each video has its kind; Shorts and streams come from the API, a stream has no duration', () => {
    const star = t.fake.channel('@star-lab')
    const arcade = t.fake.channel('@pixel-arcade')
    const byId = new Map(all.map((v) => [v.id, v]))
    expect(all).toHaveLength(star.uploads.length + arcade.uploads.length + t.fake.channel('@tiny-kitchen').uploads.length)
    for (const v of all) expect(v.kind).toBe(t.fake.videos.get(v.id)!.kind)
    expect(all.filter((v) => v.kind === 'short')).toHaveLength(3)
    expect(byId.get(arcade.uploads[2]!)).toMatchObject({ kind: 'live', duration: null })
    expect(byId.get(arcade.uploads[3]!)).toMatchObject({ kind: 'upcoming', duration: null })
    expect(byId.get(arcade.uploads[0]!)).toMatchObject({ kind: 'video', duration: 30 })
  })
})

describe('filters alone', () => {
  test('hide_shorts, hide_live, hide_watched', async () => {
    expect(await expectFilter('hide_shorts=true', (v) => v.kind !== 'short')).toBe(all.length - 3)
    expect(await expectFilter('hide_live=true', (v) => !isLive(v))).toBe(all.length - 2)
    const unwatched = await expectFilter('hide_watched=true', (v) => !v.watched)
    expect(unwatched).toBeLessThan(all.length)
    await expectFilter('hide_shorts=1&hide_live=1&hide_watched=1', (v) => v.kind === 'video' && !v.watched)
    // false and empty are no filter
    await expectFilter('hide_shorts=false&hide_live=&hide_watched=0', () => true)
  })

  test('q: every word, as a word prefix, any case; nothing but punctuation is no filter', async () => {
    const word = all[0]!.title.split(' ').at(-2)!.toLowerCase() // e.g. "engines" of "How to small engines #3"
    const words = (v: VideoJson) => v.title.toLowerCase().split(/[^\p{L}\p{N}]+/u)
    const hits = await expectFilter(`q=${encodeURIComponent(word.toUpperCase())}`, (v) => words(v).includes(word))
    expect(hits).toBeGreaterThan(0)
    await expectFilter(`q=${word.slice(0, 3)}`, (v) => words(v).some((w) => w.startsWith(word.slice(0, 3))))
    const two = all[0]!.title.split(' ').slice(0, 2) // e.g. "How to"
    await expectFilter(`q=${encodeURIComponent(two.join(' '))}`, (v) => two.every((w) => words(v).some((x) => x.startsWith(w.toLowerCase()))))
    await expectFilter('q=zzzznothing', () => false)
    await expectFilter(`q=${encodeURIComponent("'&|!:*()")}`, () => true)
    expect(titleQuery("o'brien & co:*")).toBe("'o':* & 'brien':* & 'co':*")
  })

  test('bad values are a 422 naming the field', async () => {
    await expectError(user.client.get('/api/youtube/videos/list?hide_shorts=maybe'), 422, /hide_shorts/)
    await expectError(user.client.get('/api/youtube/videos/list?hide_watched=2'), 422, /hide_watched/)
    await expectError(user.client.get(`/api/youtube/videos/list?q=${'a'.repeat(201)}`), 422, /q/)
  })
})

describe('filters combined', () => {
  test('with categories', async () => {
    const category = all.find((v) => v.kind === 'short')!.category.id
    await expectFilter(`video_categories=${category}&hide_shorts=true`, (v) => v.category.id === category && v.kind !== 'short')
    await expectFilter(`video_categories=${category}&hide_watched=true&hide_live=true`, (v) => v.category.id === category && !v.watched && !isLive(v))
    const word = all.find((v) => v.category.id === category)!.title.split(' ')[0]!
    await expectFilter(`video_categories=${category}&q=${word}`, (v) => v.category.id === category && v.title.includes(word))
  })

  test('with liked_only (newest like first)', async () => {
    const liked = (await everything(user.client, 'liked_only=true')).map((v) => v.id)
    const likedSet = new Set(liked)
    const order = (ids: string[]) => liked.filter((id) => ids.includes(id))
    for (const [query, keep] of [
      ['hide_watched=true', (v: VideoJson) => !v.watched],
      ['hide_shorts=true&hide_live=true', (v: VideoJson) => v.kind === 'video'],
      [`q=${all[0]!.title.split(' ')[0]}`, (v: VideoJson) => v.title.startsWith(all[0]!.title.split(' ')[0]!)],
    ] as const) {
      const expected = order(all.filter((v) => likedSet.has(v.id) && keep(v)).map((v) => v.id))
      expect((await everything(user.client, `liked_only=true&${query}`)).map((v) => v.id)).toEqual(expected)
      expect((await list(user.client, `per_page=1&liked_only=true&${query}`)).totalPages).toBe(expected.length)
    }
  })

  test('with a channel', async () => {
    const star = t.fake.channel('@star-lab')
    const n = await expectFilter(`channel_id=${star.id}&hide_shorts=true&hide_watched=true`, (v) => v.channel.id === star.id && v.kind !== 'short' && !v.watched)
    expect(n).toBeGreaterThan(0)
  })

  test("another user's watches hide nothing of mine", async () => {
    const other = await quickUser(t)
    for (const h of followed) await other.client.put(`/api/youtube/subscriptions/user?channel_id=${h}`)
    const mine = (await everything(other.client, 'hide_watched=true')).length
    expect(mine).toBe(all.length)
  })
})
