import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import type { FakeYoutube } from '../../scripts/fake-youtube.ts'
import { ledgerUnits, quickUser, startYoutubeTestApp, type YoutubeTestApp } from '../../tests/support/youtube.ts'
import { STREAM_REREAD_DAYS } from './queries/videos.ts'
import { refreshChannel } from './refresh.ts'
import { youtubeChannelVideoCounts, youtubeVideos } from './tables.ts'

// A stream stored as `upcoming` (or `live`) is read again by each keyed refresh of its channel,
// in the same videos.list calls as the new uploads, until it has become a plain video
// (docs/decisions/120). The fake's video changes its liveBroadcastContent between refreshes.

let fake: FakeYoutube
let t: YoutubeTestApp
beforeAll(async () => ({ fake } = t = await startYoutubeTestApp()), 60_000)
afterAll(() => t.close())

async function follow(handle: string) {
  const { client } = await quickUser(t)
  expect((await client.put(`/api/youtube/subscriptions/user?channel_id=${handle}`)).status).toBe(200)
  await t.jobs.drain()
  return { client, channel: fake.channel(handle) }
}

async function stored(id: string) {
  const [row] = await t.ctx.db.select({ kind: youtubeVideos.kind, duration: youtubeVideos.duration }).from(youtubeVideos).where(eq(youtubeVideos.id, id))
  return row
}

/** The counts table's rows for the channel, by kind, next to a count of its videos. */
async function counts(channelId: string) {
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
    const { client, channel: kitchen } = await follow('@tiny-kitchen')
    const units = await ledgerUnits(t)
    const spent = async () => (await ledgerUnits(t)) - units
    const refresh = () => refreshChannel(t.ctx, { channelId: kitchen.id })

    // a stream is announced: stored as upcoming, without a duration (1 unit: its details)
    const [stream] = fake.addUploads(kitchen.id, 1, 'upcoming')
    expect(await refresh()).toEqual({ status: 'done', added: 1, via: 'feed' })
    expect(await stored(stream!.id)).toEqual({ kind: 'upcoming', duration: 0 })
    expect(await spent()).toBe(1)

    // nothing new, but the stream is read again: 1 unit, still upcoming
    expect(await refresh()).toEqual({ status: 'done', added: 0, via: 'feed' })
    expect(await stored(stream!.id)).toEqual({ kind: 'upcoming', duration: 0 })
    expect(await spent()).toBe(2)

    // it goes live
    fake.videos.get(stream!.id)!.kind = 'live'
    await refresh()
    expect(await stored(stream!.id)).toEqual({ kind: 'live', duration: 0 })
    expect(await spent()).toBe(3)
    let c = await counts(kitchen.id)
    expect(c.kept).toEqual(c.real)
    expect(c.real.live).toBe(1)

    // it ends while two videos are uploaded: one videos.list for the three ids (1 unit)
    fake.videos.get(stream!.id)!.kind = 'video'
    fake.addUploads(kitchen.id, 2)
    expect(await refresh()).toEqual({ status: 'done', added: 2, via: 'feed' })
    expect(await stored(stream!.id)).toEqual({ kind: 'video', duration: 30 })
    expect(await spent()).toBe(4)
    c = await counts(kitchen.id)
    expect(c.kept).toEqual(c.real)
    expect(c.real).toEqual({ video: 15 })

    // the list agrees: hide_live hides nothing now, and its page count says so
    const list = await (await client.get('/api/youtube/videos/list?hide_live=true&per_page=1')).json()
    expect(list.totalPages).toBe(15)

    // no stream left: a refresh with nothing new spends nothing
    expect(await refresh()).toEqual({ status: 'done', added: 0, via: 'feed' })
    expect(await spent()).toBe(4)
  }, 60_000)

  test(`streams published more than ${STREAM_REREAD_DAYS} days ago are not read again; a keyless refresh reads none`, async () => {
    // the fake's arcade has a stream live and one upcoming, both from January
    const { channel: arcade } = await follow('@pixel-arcade')
    const [live, upcoming] = [arcade.uploads[2]!, arcade.uploads[3]!]
    expect(await stored(live)).toEqual({ kind: 'live', duration: 0 })
    expect(await stored(upcoming)).toEqual({ kind: 'upcoming', duration: 0 })
    const refresh = (env = {}) => refreshChannel({ ...t.ctx, env: { ...t.ctx.env, ...env } }, { channelId: arcade.id })
    fake.videos.get(upcoming)!.kind = 'video'
    let units = await ledgerUnits(t)
    expect(await refresh()).toEqual({ status: 'done', added: 0, via: 'feed' })
    expect(await ledgerUnits(t)).toBe(units)
    expect(await stored(upcoming)).toEqual({ kind: 'upcoming', duration: 0 })

    // without a key the feed cannot tell a stream's state: nothing is asked, nothing changes
    await t.ctx.db.update(youtubeVideos).set({ publishedAt: sql`now()` }).where(eq(youtubeVideos.id, upcoming))
    units = fake.units
    expect(await refresh({ YOUTUBE_API_KEY: '' })).toEqual({ status: 'done', added: 0, via: 'feed' })
    expect(fake.units).toBe(units)
    expect(await stored(upcoming)).toEqual({ kind: 'upcoming', duration: 0 })

    // with the key, now that it is recent, it is read again (1 unit) and has ended
    expect(await refresh()).toEqual({ status: 'done', added: 0, via: 'feed' })
    expect(fake.units).toBe(units + 1)
    expect(await stored(upcoming)).toEqual({ kind: 'video', duration: 30 })
    expect(await stored(live)).toEqual({ kind: 'live', duration: 0 })
    const c = await counts(arcade.id)
    expect(c.kept).toEqual(c.real)
  }, 60_000)
})
