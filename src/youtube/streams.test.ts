import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import type { FakeYoutube } from '../../scripts/fake-youtube.ts'
import { createYoutubeTestApp, ledgerUnits, quickUser, startTestFake, type YoutubeTestApp } from '../../tests/support/youtube.ts'
import { STREAM_REREAD_DAYS } from './queries/videos.ts'
import { refreshChannel } from './refresh.ts'
import { youtubeChannelVideoCounts, youtubeVideos } from './tables.ts'

// A stream stored as `upcoming` (or `live`) is read again by each keyed refresh of its channel,
// in the same videos.list calls as the new uploads, until it has become a plain video
// (docs/decisions/120). The fake's video changes its liveBroadcastContent between refreshes.

let fake: FakeYoutube
const apps: YoutubeTestApp[] = []
beforeAll(async () => {
  fake = await startTestFake()
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

async function stored(t: YoutubeTestApp, id: string) {
  const [row] = await t.ctx.db.select({ kind: youtubeVideos.kind, duration: youtubeVideos.duration }).from(youtubeVideos).where(eq(youtubeVideos.id, id))
  return row
}

/** The counts table's rows for the channel, by kind, next to a count of its videos. */
async function counts(t: YoutubeTestApp, channelId: string) {
  const kept = await t.ctx.db
    .select({ kind: youtubeChannelVideoCounts.kind, n: sql<number>`sum(${youtubeChannelVideoCounts.videos})::int` })
    .from(youtubeChannelVideoCounts)
    .where(eq(youtubeChannelVideoCounts.channelId, channelId))
    .groupBy(youtubeChannelVideoCounts.kind)
  const real = await t.ctx.db
    .select({ kind: youtubeVideos.kind, n: sql<number>`count(*)::int` })
    .from(youtubeVideos)
    .where(eq(youtubeVideos.channelId, channelId))
    .groupBy(youtubeVideos.kind)
  const asMap = (rows: { kind: string; n: number }[]) => Object.fromEntries(rows.filter((r) => r.n > 0).map((r) => [r.kind, r.n]))
  return { kept: asMap(kept), real: asMap(real) }
}

describe('streams read again', () => {
  test('upcoming, then live, then ended: kind and duration follow, 1 unit per refresh, the counts in step', async () => {
    const t = await app()
    const kitchen = fake.channel('@tiny-kitchen')
    const { client } = await quickUser(t)
    expect((await client.put('/api/youtube/subscriptions/user?channel_id=@tiny-kitchen')).status).toBe(200)
    await t.jobs.drain()
    // the handle (1) and the first fill's videos.list (1)
    expect(await ledgerUnits(t)).toBe(2)
    const refresh = () => refreshChannel(t.ctx, { channelId: kitchen.id })

    // a stream is announced: stored as upcoming, without a duration (1 unit: its details)
    const [stream] = fake.addUploads(kitchen.id, 1, 'upcoming')
    expect(await refresh()).toEqual({ status: 'done', added: 1, via: 'feed' })
    expect(await stored(t, stream!.id)).toEqual({ kind: 'upcoming', duration: 0 })
    expect(await ledgerUnits(t)).toBe(3)

    // nothing new, but the stream is read again: 1 unit, still upcoming
    expect(await refresh()).toEqual({ status: 'done', added: 0, via: 'feed' })
    expect(await stored(t, stream!.id)).toEqual({ kind: 'upcoming', duration: 0 })
    expect(await ledgerUnits(t)).toBe(4)

    // it goes live
    fake.videos.get(stream!.id)!.kind = 'live'
    await refresh()
    expect(await stored(t, stream!.id)).toEqual({ kind: 'live', duration: 0 })
    expect(await ledgerUnits(t)).toBe(5)
    let c = await counts(t, kitchen.id)
    expect(c.kept).toEqual(c.real)
    expect(c.real.live).toBe(1)

    // it ends while two videos are uploaded: one videos.list for the three ids (1 unit)
    fake.videos.get(stream!.id)!.kind = 'video'
    fake.addUploads(kitchen.id, 2)
    expect(await refresh()).toEqual({ status: 'done', added: 2, via: 'feed' })
    expect(await stored(t, stream!.id)).toEqual({ kind: 'video', duration: 30 })
    expect(await ledgerUnits(t)).toBe(6)
    c = await counts(t, kitchen.id)
    expect(c.kept).toEqual(c.real)
    expect(c.real).toEqual({ video: 15 })

    // the list agrees: hide_live hides nothing now, and its page count says so
    const list = await (await client.get('/api/youtube/videos/list?hide_live=true&per_page=1')).json()
    expect(list.totalPages).toBe(15)

    // no stream left: a refresh with nothing new spends nothing
    expect(await refresh()).toEqual({ status: 'done', added: 0, via: 'feed' })
    expect(await ledgerUnits(t)).toBe(6)
    expect(fake.units).toBe(6)
  }, 60_000)

  test(`a stream published more than ${STREAM_REREAD_DAYS} days ago is not read again; a keyless refresh reads none`, async () => {
    const t = await app()
    const kitchen = fake.channel('@tiny-kitchen')
    const { client } = await quickUser(t)
    expect((await client.put('/api/youtube/subscriptions/user?channel_id=@tiny-kitchen')).status).toBe(200)
    await t.jobs.drain()
    const [stream] = fake.addUploads(kitchen.id, 1, 'upcoming')
    await refreshChannel(t.ctx, { channelId: kitchen.id })
    expect(await stored(t, stream!.id)).toEqual({ kind: 'upcoming', duration: 0 })
    const units = await ledgerUnits(t)
    await t.ctx.db
      .update(youtubeVideos)
      .set({ publishedAt: sql`now() - make_interval(days => ${STREAM_REREAD_DAYS + 1})` })
      .where(eq(youtubeVideos.id, stream!.id))
    fake.videos.get(stream!.id)!.kind = 'video'
    expect(await refreshChannel(t.ctx, { channelId: kitchen.id })).toEqual({ status: 'done', added: 0, via: 'feed' })
    expect(await ledgerUnits(t)).toBe(units)
    expect(await stored(t, stream!.id)).toEqual({ kind: 'upcoming', duration: 0 })

    // without a key the feed cannot tell a stream's state: nothing is asked, nothing changes
    const before = fake.units
    await t.ctx.db.update(youtubeVideos).set({ publishedAt: sql`now()` }).where(eq(youtubeVideos.id, stream!.id))
    expect(await refreshChannel({ ...t.ctx, env: { ...t.ctx.env, YOUTUBE_API_KEY: '' } }, { channelId: kitchen.id })).toEqual({ status: 'done', added: 0, via: 'feed' })
    expect(fake.units).toBe(before)
    expect(await stored(t, stream!.id)).toEqual({ kind: 'upcoming', duration: 0 })
  }, 60_000)
})
