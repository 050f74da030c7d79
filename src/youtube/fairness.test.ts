import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import type { FakeYoutube } from '../../scripts/fake-youtube.ts'
import { expectError } from '../../tests/support/http.ts'
import { quickUser, resetYoutube, startYoutubeTestApp, type YoutubeTestApp } from '../../tests/support/youtube.ts'
import { followedChannelIds } from './queries/channels.ts'
import { chargeUserUnits, firstRefreshUnits } from './quota.ts'

// One user's imports cannot take everyone's day: each user's share of the
// daily units (YOUTUBE_USER_DAILY_UNITS) pays for the channels they bring in,
// and the refresh order takes every user's channels in turn.

let fake: FakeYoutube
let t: YoutubeTestApp
// backfill 100 videos → a first refresh counts 4 units; share 60 units a day
beforeAll(async () => ({ fake } = t = await startYoutubeTestApp({ YOUTUBE_USER_DAILY_UNITS: '60', YOUTUBE_BACKFILL_VIDEOS: '100' })), 60_000)
afterAll(() => t.close())
afterEach(() => resetYoutube(t))

const allIds = () => [...fake.channels.values()].filter((c) => !c.handle.startsWith('@viewer')).map((c) => c.id)
function takeout(ids: string[]) {
  return ['Channel Id,Channel Url,Channel Title', ...ids.map((i) => `${i},http://www.youtube.com/channel/${i},T`)].join('\n') + '\n'
}
function importFile(client: { request: (p: string, i: RequestInit) => Promise<Response> }, ids: string[]) {
  const form = new FormData()
  form.set('file', new Blob([takeout(ids)]), 'subscriptions.csv')
  return client.request('/api/youtube/subscriptions/import', { method: 'POST', body: form })
}

describe('per-user share of the daily units', () => {
  test('the charge is atomic per user and day: what does not fit is refused whole', async () => {
    const userId = crypto.randomUUID()
    expect(await chargeUserUnits(t.ctx.db, userId, 50, 60)).toBeNull()
    expect(await chargeUserUnits(t.ctx.db, userId, 11, 60)).toBe(10)
    expect(await chargeUserUnits(t.ctx.db, userId, 10, 60)).toBeNull()
    expect(await chargeUserUnits(t.ctx.db, crypto.randomUUID(), 60, 60)).toBeNull()
    expect(firstRefreshUnits(200)).toBe(8)
  })

  test('an import larger than the user\'s share is 429 saying what it would cost; nothing is written or spent', async () => {
    const { client } = await quickUser(t)
    const ids = allIds().slice(0, 20) // 1 lookup unit + 20 × 4 = 81 > 60
    const before = fake.units
    const detail = await expectError(importFile(client, ids), 429)
    expect(detail).toContain('about 81 YouTube units to load 20 new channels')
    expect(detail).toContain('60 of your 60 for today are left')
    expect(fake.units).toBe(before)
    expect(((await (await client.get('/api/youtube/subscriptions/list')).json()) as { totalItems?: number; items?: unknown[] }).items ?? []).toEqual([])
    // a smaller one fits; another user still has their own share
    const small = await importFile(client, ids.slice(0, 10)) // 1 + 40
    expect(small.status).toBe(200)
    await expectError(importFile(client, ids.slice(10, 15)), 429) // 1 + 20 > 19 left
    const other = await quickUser(t)
    expect((await importFile(other.client, ids.slice(10, 15))).status).toBe(200)
  })

  test('channels already in the app cost an import nothing more', async () => {
    const a = await quickUser(t)
    const ids = allIds().slice(30, 40)
    expect((await importFile(a.client, ids)).status).toBe(200)
    const b = await quickUser(t)
    // 10 stored channels: 0 units, even with a share this small
    expect((await importFile(b.client, ids)).status).toBe(200)
    expect((await importFile(b.client, ids)).status).toBe(200)
  })
})

describe('refresh order across users', () => {
  test('every user\'s least recently refreshed channel first, then every user\'s second, ...', async () => {
    const many = await quickUser(t)
    const few = await quickUser(t)
    const ids = allIds()
    const bulk = ids.slice(40, 48)
    const own = ids.slice(48, 50)
    await t.ctx.db.execute(`delete from youtube_subscriptions`)
    await t.ctx.db.execute(`delete from rate_limits where key like 'youtube-units:%'`)
    expect((await importFile(many.client, bulk)).status).toBe(200)
    expect((await importFile(few.client, own)).status).toBe(200)
    const order = await followedChannelIds(t.ctx.db)
    expect(order).toHaveLength(10)
    // the two channels of the user with few come within the first four, not after the eight of the other
    expect(order.slice(0, 4)).toEqual(expect.arrayContaining(own))
  })
})
