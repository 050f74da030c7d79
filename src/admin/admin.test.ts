import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import type { FakeYoutube } from '../../scripts/fake-youtube.ts'
import { Client, createTestApp, type TestApp } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { resetYoutube, quickUser, startYoutubeTestApp, type YoutubeTestApp } from '../../tests/support/youtube.ts'
import { youtubeVideoCategories, youtubeVideos } from '../youtube/tables.ts'

let fake: FakeYoutube
let t: YoutubeTestApp
let admin: Awaited<ReturnType<typeof quickUser>>
beforeAll(async () => {
  ;({ fake } = t = await startYoutubeTestApp())
  admin = await quickUser(t, { admin: true })
}, 60_000)
afterAll(() => t.close())
afterEach(() => resetYoutube(t))

/** A GET as the admin page's browser sends it (an action GET without Sec-Fetch-Site, Origin or Referer is refused). */
const sameSite = (client: Client, path: string) => client.request(path, { headers: { 'sec-fetch-site': 'same-origin' } })

const paths = [
  '/api/admin/cron/run',
  '/api/admin/youtube/update_subscriptions',
  '/api/admin/youtube/update_channel_videos',
  '/api/admin/youtube/update_video_categories',
  '/api/admin/youtube/quota',
] as const

describe('admin routes', () => {
  test('401 for anonymous callers, 403 for signed-in non-admins, before any validation', async () => {
    const anon = new Client(t)
    const user = await quickUser(t)
    for (const path of paths) {
      await expectError(anon.get(`${path}?channel_id=bad`), 401, 'Unauthorized')
      await expectError(user.client.get(`${path}?channel_id=bad`), 403, 'Forbidden')
    }
    expect(t.jobs.waiting).toEqual([])
  })

  test('update_channel_videos: one channel (even one not stored yet), with date_after, or all of them', async () => {
    const kitchen = fake.channel('@tiny-kitchen')
    const res = await sameSite(admin.client, `/api/admin/youtube/update_channel_videos?channel_id=${kitchen.id}`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ jobIds: [`youtube.refreshChannel.${kitchen.id}`] })
    await t.jobs.drain()
    const stored = await t.ctx.db.select().from(youtubeVideos).where(eq(youtubeVideos.channelId, kitchen.id))
    expect(stored).toHaveLength(kitchen.uploads.length)

    const dated = await (await sameSite(admin.client, `/api/admin/youtube/update_channel_videos?channel_id=${kitchen.id}&date_after=20250101`)).json()
    expect(t.jobs.waiting.map((j) => j.payload)).toEqual([{ channelId: kitchen.id, dateAfter: '20250101' }])
    expect(dated.jobIds).toHaveLength(1)
    t.jobs.waiting = []

    const all = await (await sameSite(admin.client, '/api/admin/youtube/update_channel_videos')).json()
    expect(all.jobIds).toHaveLength(1)
    expect(t.jobs.waiting.map((j) => j.def.name)).toEqual(['youtube.refreshAllChannels'])
    t.jobs.waiting = []

    await expectError(sameSite(admin.client, '/api/admin/youtube/update_channel_videos?channel_id=nope'), 422, /channel_id/)
    await expectError(sameSite(admin.client, '/api/admin/youtube/update_channel_videos?date_after=2025-01-01'), 422, /date_after/)
    await expectError(sameSite(admin.client, '/api/admin/youtube/update_channel_videos?date_after=20250231'), 422, /date_after/)
  })

  test('update_subscriptions: everyone, or one user by email', async () => {
    const user = await quickUser(t)
    await expectError(sameSite(admin.client, `/api/admin/youtube/update_subscriptions?email=${user.email}`), 404, 'Youtube Channel not found.')
    await user.client.post('/api/youtube/channels/user', { channel_id: '@viewer-alice' })
    t.jobs.waiting = []
    const one = await (await sameSite(admin.client, `/api/admin/youtube/update_subscriptions?email=${user.email.toUpperCase()}`)).json()
    expect(one.jobIds).toHaveLength(1)
    expect(t.jobs.waiting.map((j) => j.payload)).toEqual([{ userId: user.id }])
    await t.jobs.drain()
    const subs = await (await user.client.get('/api/youtube/subscriptions/list')).json()
    expect(subs.channels).toHaveLength(fake.channel('@viewer-alice').subscriptions!.length)
    t.jobs.waiting = []

    expect((await (await sameSite(admin.client, '/api/admin/youtube/update_subscriptions')).json()).jobIds).toHaveLength(1)
    expect(t.jobs.waiting.map((j) => j.payload)).toEqual([{}])
    t.jobs.waiting = []
    await expectError(sameSite(admin.client, '/api/admin/youtube/update_subscriptions?email=nobody@example.com'), 404, 'User not found.')
    await expectError(sameSite(admin.client, '/api/admin/youtube/update_subscriptions?email=not-an-email'), 422, /email/)
  })

  test('update_video_categories', async () => {
    const res = await sameSite(admin.client, '/api/admin/youtube/update_video_categories')
    expect((await res.json()).jobIds).toHaveLength(1)
    await t.jobs.drain()
    expect(await t.ctx.db.select().from(youtubeVideoCategories)).toHaveLength(32)
  })

  test('cron/run queues every scheduled job now', async () => {
    const res = await sameSite(admin.client, '/api/admin/cron/run')
    const { jobIds } = (await res.json()) as { jobIds: string[] }
    const names = t.jobs.waiting.map((j) => j.def.name)
    expect(jobIds).toHaveLength(names.length)
    expect(names).toEqual(expect.arrayContaining(['youtube.refreshAllChannels', 'youtube.syncSubscriptions', 'youtube.refreshCategories']))
    t.jobs.waiting = []
  })

  test('quota: units spent today, and why work stopped', async () => {
    const before = await (await sameSite(admin.client, '/api/admin/youtube/quota')).json()
    expect(before).toMatchObject({ budget: 10_000, exhausted: false, cause: null, failingChannels: [] })
    // the ledger counts what the API counts
    await t.ctx.jobs.enqueue((await import('../youtube/jobs.ts')).refreshCategoriesJob, {})
    await t.jobs.drain()
    expect((await (await sameSite(admin.client, '/api/admin/youtube/quota')).json()).units).toBe(before.units + fake.units)
    expect(fake.units).toBe(1)
    fake.quota = fake.units
    // a channel not stored yet: its refresh must ask the API first
    const fresh = [...fake.channels.values()].find((c) => c.handle.endsWith('-40'))!
    await sameSite(admin.client, `/api/admin/youtube/update_channel_videos?channel_id=${fresh.id}`)
    await t.jobs.drain()
    const after = await (await sameSite(admin.client, '/api/admin/youtube/quota')).json()
    expect(after).toMatchObject({ exhausted: true, cause: 'YouTube answered quotaExceeded.', resetsAt: expect.any(String) })
    // the quota stop scheduled its own resume after the reset
    expect(t.jobs.delayed.map((j) => j.def.name)).toContain('youtube.refreshAllChannels')
    fake.reset()
  })
})

describe('through the real queue (bunqueue)', () => {
  let real: TestApp
  afterAll(() => real?.close())

  test('an admin refresh runs on the worker and fills the channel', async () => {
    real = await createTestApp({ env: { ...fake.env, YOUTUBE_RETRY_BASE_MS: '1' } })
    const boss = await quickUser(real, { admin: true })
    const star = fake.channel('@star-lab')
    const res = await sameSite(boss.client, `/api/admin/youtube/update_channel_videos?channel_id=${star.id}`)
    expect(res.status).toBe(200)
    const end = Date.now() + 15_000
    for (;;) {
      const rows = await real.ctx.db.select({ id: youtubeVideos.id }).from(youtubeVideos).where(eq(youtubeVideos.channelId, star.id))
      if (rows.length === star.uploads.length) break
      if (Date.now() > end) throw new Error(`only ${rows.length} videos after 15 s`)
      await Bun.sleep(50)
    }
  }, 30_000)
})
