import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import type { FakeYoutube } from '../../scripts/fake-youtube.ts'
import { createYoutubeTestApp, ledgerUnits, quickUser, startTestFake, type YoutubeTestApp } from '../../tests/support/youtube.ts'
import { users } from '../auth/tables.ts'
import { topics } from '../ws/hub.ts'
import { refreshAllChannels } from './jobs.ts'
import { getChannel } from './queries/channels.ts'
import { claimRefresh } from './queries/refresh-lease.ts'
import { quotaStatus } from './quota.ts'
import { refreshChannel, resetStuckRefreshes } from './refresh.ts'
import { youtubeChannels, youtubeQuotaDays, youtubeVideos } from './tables.ts'

let fake: FakeYoutube
const apps: YoutubeTestApp[] = []
beforeAll(async () => {
  fake = await startTestFake()
  // pays for the database snapshot once, outside any test's time limit
  await (await createYoutubeTestApp(fake)).close()
}, 60_000)
afterAll(async () => {
  await fake.stop()
})
afterEach(async () => {
  for (const t of apps.splice(0)) await t.close()
  fake.reset()
})

async function app(env: Record<string, string> = {}) {
  const t = await createYoutubeTestApp(fake, env)
  apps.push(t)
  return t
}

async function follow(t: YoutubeTestApp, handle: string) {
  const { client, email } = await quickUser(t)
  const res = await client.put(`/api/youtube/subscriptions/user?channel_id=${encodeURIComponent(handle)}`)
  expect(res.status).toBe(200)
  return { client, email, channel: (await res.json()) as { id: string } }
}

const videoCount = async (t: YoutubeTestApp, channelId: string) =>
  (await t.ctx.db.select({ id: youtubeVideos.id }).from(youtubeVideos).where(eq(youtubeVideos.channelId, channelId))).length

describe('channel refresh: quota accounting', () => {
  test('scripted scenario: exact units for add, first refresh, nothing new, new uploads', async () => {
    const t = await app()
    const kitchen = fake.channel('@tiny-kitchen')
    // resolving a handle: channels.list forHandle, 1 unit
    const { channel } = await follow(t, '@tiny-kitchen')
    expect(await ledgerUnits(t)).toBe(1)
    expect(t.jobs.waiting.map((j) => j.def.name)).toEqual(['youtube.refreshChannel'])

    // first refresh: the feed shows the whole channel (12 < 15), videos.list for 12 ids: 1 unit
    await t.jobs.drain()
    expect(await videoCount(t, channel.id)).toBe(12)
    expect(await ledgerUnits(t)).toBe(2)

    // nothing new: the feed alone, 0 units
    expect(await refreshChannel(t.ctx, { channelId: channel.id })).toEqual({ status: 'done', added: 0, via: 'feed' })
    expect(await ledgerUnits(t)).toBe(2)

    // three new uploads: 1 unit for their details
    const added = fake.addUploads(kitchen.id, 3)
    expect(await refreshChannel(t.ctx, { channelId: channel.id })).toEqual({ status: 'done', added: 3, via: 'feed' })
    expect(await ledgerUnits(t)).toBe(3)
    const [newest] = await t.ctx.db.select().from(youtubeVideos).where(eq(youtubeVideos.id, added[0]!.id))
    expect(newest).toMatchObject({ channelId: kitchen.id, title: added[0]!.title, duration: 30 })
    // the ledger and the fake agree
    expect(fake.units).toBe(3)
  })

  test('without the feed: nothing new costs 1 unit; 60 new cost 2 listing pages and 2 detail calls', async () => {
    const t = await app({ YOUTUBE_USE_FEED: 'false' })
    const motors = fake.channel('@retro-motors')
    const { channel } = await follow(t, '@retro-motors')
    await t.jobs.drain()
    // 1 (handle) + 2 pages of 50 + 2 videos.list (60 = 50 + 10) + 1 Shorts playlist
    expect(await videoCount(t, channel.id)).toBe(60)
    expect(await ledgerUnits(t)).toBe(1 + 2 + 2 + 1)

    const before = await ledgerUnits(t)
    expect(await refreshChannel(t.ctx, { channelId: channel.id })).toEqual({ status: 'done', added: 0, via: 'api' })
    expect((await ledgerUnits(t)) - before).toBe(1)

    fake.addUploads(motors.id, 60)
    const mid = await ledgerUnits(t)
    expect(await refreshChannel(t.ctx, { channelId: channel.id })).toEqual({ status: 'done', added: 60, via: 'api' })
    expect((await ledgerUnits(t)) - mid).toBe(4 + 1)
    expect(await videoCount(t, channel.id)).toBe(120)
  })

  test('the feed falls back to the API when it fails or cannot show everything new', async () => {
    const t = await app()
    const { channel } = await follow(t, '@pixel-arcade')
    fake.feedDown = true
    await t.jobs.drain()
    // first refresh of 30 uploads through the API: 1 page + 1 videos.list + 1 Shorts playlist
    expect(await videoCount(t, channel.id)).toBe(30)
    expect(await ledgerUnits(t)).toBe(1 + 1 + 1 + 1)
    fake.feedDown = false
    // 20 new: the feed's 15 are all unknown, so the playlist is paged until a known one
    fake.addUploads(channel.id, 20)
    expect(await refreshChannel(t.ctx, { channelId: channel.id })).toEqual({ status: 'done', added: 20, via: 'api' })
    expect(await ledgerUnits(t)).toBe(4 + 1 + 1 + 1)
  })

  test('a first refresh reaches back YOUTUBE_BACKFILL_VIDEOS; date_after reaches further, fetching only unknown ones', async () => {
    const t = await app({ YOUTUBE_BACKFILL_VIDEOS: '120' })
    const garden = fake.channel('@lofi-garden')
    const { channel } = await follow(t, '@lofi-garden')
    await t.jobs.drain()
    expect(await videoCount(t, channel.id)).toBe(120)
    // 1 handle + 3 pages (120 of 260) + 3 videos.list (50, 50, 20) + 1 Shorts playlist
    expect(await ledgerUnits(t)).toBe(8)

    const oldest = fake.videos.get(garden.uploads[199]!)!.publishedAt
    const day = new Date(Date.UTC(oldest.getUTCFullYear(), oldest.getUTCMonth(), oldest.getUTCDate()))
    const expected = garden.uploads.filter((id) => fake.videos.get(id)!.publishedAt >= day).length
    const outcome = await refreshChannel(t.ctx, { channelId: channel.id, dateAfter: day })
    expect(outcome).toMatchObject({ status: 'done', added: expected - 120, via: 'api' })
    expect(await videoCount(t, channel.id)).toBe(expected)
  })
})

describe('channel refresh: updating, crashes and concurrency', () => {
  test('updating is published to every follower while the refresh runs, and to no one else', async () => {
    const t = await app()
    const a = await follow(t, '@star-lab')
    const channel = a.channel
    const b = await quickUser(t)
    await b.client.put(`/api/youtube/subscriptions/user?channel_id=${channel.id}`)
    await quickUser(t) // follows nothing
    const ids = await t.ctx.db.select({ id: users.id, email: users.email }).from(users)
    const idOf = (email: string) => ids.find((u) => u.email === email)!.id
    expect(ids).toHaveLength(3)
    const messages: { topic: string; message: unknown }[] = []
    t.ctx.hub.listen((topic, message) => messages.push({ topic, message }))

    fake.latencyMs = 100
    const running = t.jobs.drain()
    await Bun.sleep(50)
    const during = await a.client.get(`/api/youtube/channels/${channel.id}`)
    expect(await during.json()).toMatchObject({ id: channel.id, updating: true, subscribed: true })
    await running
    const after = await a.client.get(`/api/youtube/channels/${channel.id}`)
    expect(await after.json()).toMatchObject({ id: channel.id, updating: false, subscribed: true })

    const expected = [
      { id: channel.id, updating: true },
      { id: channel.id, updating: false },
    ]
    expect(new Set(messages.map((m) => m.topic))).toEqual(new Set([topics.channels(idOf(a.email)), topics.channels(idOf(b.email))]))
    for (const email of [a.email, b.email]) {
      expect(messages.filter((m) => m.topic === topics.channels(idOf(email))).map((m) => m.message)).toEqual(expected)
    }
  })

  test('a failing refresh writes nothing and leaves no stuck updating', async () => {
    const t = await app({ YOUTUBE_USE_FEED: 'false' })
    const { channel } = await follow(t, '@star-lab')
    fake.failNext(100, 503)
    expect(t.jobs.drain()).rejects.toThrow(/503/)
    await Bun.sleep(50)
    fake.reset()
    expect(await videoCount(t, channel.id)).toBe(0)
    const row = await getChannel(t.ctx.db, channel.id)
    expect(row?.refreshStartedAt).toBeNull()
    expect(row?.refreshError).toMatch(/503/)
    // the next run succeeds and clears the error
    expect(await refreshChannel(t.ctx, { channelId: channel.id })).toMatchObject({ status: 'done', added: fake.channel('@star-lab').uploads.length })
    expect((await getChannel(t.ctx.db, channel.id))?.refreshError).toBeNull()
  })

  test('a refresh that died with its process is cleared at start-up and announced', async () => {
    const t = await app()
    const { channel } = await follow(t, '@star-lab')
    // the crashed process had claimed the channel
    expect(await claimRefresh(t.ctx.db, channel.id)).toBe(true)
    expect(await refreshChannel(t.ctx, { channelId: channel.id })).toEqual({ status: 'busy' })
    const heard: unknown[] = []
    t.ctx.hub.listen((_topic, message) => heard.push(message))
    expect(await resetStuckRefreshes(t.ctx)).toEqual([channel.id])
    expect(heard).toEqual([{ id: channel.id, updating: false }])
    expect((await getChannel(t.ctx.db, channel.id))?.refreshStartedAt).toBeNull()
    // with several processes, a live heartbeat is left alone and a dead one is taken over
    expect(await claimRefresh(t.ctx.db, channel.id)).toBe(true)
    expect(await resetStuckRefreshes(t.ctx, { staleOnly: true })).toEqual([])
    await t.ctx.db
      .update(youtubeChannels)
      .set({ refreshHeartbeatAt: sql`now() - interval '10 minutes'` })
      .where(eq(youtubeChannels.id, channel.id))
    expect(await refreshChannel(t.ctx, { channelId: channel.id })).toMatchObject({ status: 'done', added: fake.channel('@star-lab').uploads.length })
  })

  test('two refreshes of one channel at once: one runs, the other steps aside; no duplicates', async () => {
    const t = await app({ YOUTUBE_USE_FEED: 'false' })
    const { channel } = await follow(t, '@retro-motors')
    t.jobs.waiting = []
    const outcomes = await Promise.all([
      refreshChannel(t.ctx, { channelId: channel.id }),
      refreshChannel(t.ctx, { channelId: channel.id }),
      refreshChannel(t.ctx, { channelId: channel.id }),
    ])
    expect(outcomes.filter((o) => o.status === 'done')).toHaveLength(1)
    expect(outcomes.filter((o) => o.status === 'busy')).toHaveLength(2)
    const uploads = fake.channel('@retro-motors').uploads.length
    expect(await videoCount(t, channel.id)).toBe(uploads)
    // and a date_after refresh over known videos adds none twice
    expect(await refreshChannel(t.ctx, { channelId: channel.id, dateAfter: new Date(0) })).toMatchObject({ added: 0 })
    expect(await videoCount(t, channel.id)).toBe(uploads)
  })
})

describe('quota exhaustion', () => {
  test('mid-way through all channels: stops cleanly, records the cause, resumes after the reset', async () => {
    const t = await app({ YOUTUBE_USE_FEED: 'false' })
    // three channels of 3 units each (a playlist page, a videos.list, the Shorts playlist) with the feed off
    const handles = ['@tiny-kitchen', '@star-lab', '@pixel-arcade']
    const { client } = await quickUser(t)
    for (const h of handles) expect((await client.put(`/api/youtube/subscriptions/user?channel_id=${h}`)).status).toBe(200)
    t.jobs.waiting = []
    // 3 units went on the handles; allow 7 more: two channels, then the third stops between its page and its details
    fake.quota = fake.units + 7
    const run = await refreshAllChannels({ ...t.ctx, jobs: undefined as never }, {})
    expect(run.stopped).toBe('YouTube answered quotaExceeded.')
    expect(run.outcomes.map((o) => o.status)).toEqual(['done', 'done', 'quota'])
    const status = await quotaStatus(t.ctx.db, 10_000)
    expect(status).toMatchObject({ units: 10, exhausted: true, cause: 'YouTube answered quotaExceeded.' })
    const third = (await t.ctx.db.select().from(youtubeChannels)).find((c) => c.refreshError)!
    expect(third.refreshError).toMatch(/quota/)
    expect(third.refreshStartedAt).toBeNull()
    expect(await videoCount(t, third.id)).toBe(0) // nothing half-written

    // through the queue: the job schedules its own resume after the reset, and spends nothing now
    await refreshAllChannels(t.ctx, {})
    expect(t.jobs.waiting).toHaveLength(0)
    expect(t.jobs.delayed.map((j) => j.def.name)).toEqual(['youtube.refreshAllChannels'])
    expect(t.jobs.delayed[0]!.delayMs).toBeGreaterThan(new Date(status.resetsAt).getTime() - Date.now())

    // the reset: YouTube's day turns over (the ledger line becomes yesterday's)
    fake.quota = null
    await t.ctx.db.update(youtubeQuotaDays).set({ day: sql`${youtubeQuotaDays.day} - 1` })
    t.jobs.waiting.push(...t.jobs.delayed.splice(0))
    await t.jobs.drain()
    expect(t.jobs.ran.filter((n) => n === 'youtube.refreshChannel')).toHaveLength(3)
    for (const h of handles) {
      const ch = fake.channel(h)
      expect(await videoCount(t, ch.id)).toBe(ch.uploads.length)
    }
    expect((await t.ctx.db.select().from(youtubeChannels)).every((c) => c.refreshError === null)).toBe(true)
  })
})
