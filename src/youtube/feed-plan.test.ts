import { afterAll, beforeAll, expect, test } from 'bun:test'
import { and, eq, inArray, sql } from 'drizzle-orm'
import { quickUser, startYoutubeTestApp, type YoutubeTestApp } from '../../tests/support/youtube.ts'
import { rowsOf } from '../db/rows.ts'
import { feedQueries, type VideoFilter } from './queries/feed.ts'
import { youtubeChannelVideoCounts, youtubeVideos } from './tables.ts'

// The subscription feed's two ways to find a page (docs/decisions/118): walking the date index
// and gathering the user's videos give the same rows, in the same order, for every filter and
// page; `auto` runs the one its rule picks.
let t: YoutubeTestApp
let user: Awaited<ReturnType<typeof quickUser>>
let categories: number[]

beforeAll(async () => {
  t = await startYoutubeTestApp()
  user = await quickUser(t)
  for (const h of ['@star-lab', '@pixel-arcade', '@tiny-kitchen']) {
    expect((await user.client.put(`/api/youtube/subscriptions/user?channel_id=${h}`)).status).toBe(200)
  }
  // someone else follows two more channels: most of the table's videos are not the user's
  const other = await quickUser(t)
  for (const h of ['@lofi-garden', '@retro-motors']) {
    expect((await other.client.put(`/api/youtube/subscriptions/user?channel_id=${h}`)).status).toBe(200)
  }
  await t.jobs.drain()
  const res = await user.client.get('/api/youtube/videos/list?per_page=100')
  const videos: { id: string; category: { id: number } }[] = (await res.json()).videos
  for (const v of videos.filter((_, i) => i % 4 === 0)) expect((await user.client.put(`/api/youtube/videos/${v.id}/watch`)).status).toBe(200)
  categories = [...new Set(videos.map((v) => v.category.id))]
  // the planner's row count of the table, which `auto` reads
  await t.ctx.db.execute(sql`analyze youtube_videos`)
}, 60_000)
afterAll(() => t.close())

const ids = async (f: VideoFilter, plan: 'auto' | 'walk' | 'gather') => (await feedQueries(t.ctx.db, user.id, f, plan).rows).map((r) => r.id)

test('walk, gather and auto list the same pages under every filter', async () => {
  const filters: Omit<VideoFilter, 'page' | 'perPage'>[] = [
    {},
    { hideShorts: true },
    { hideLive: true, hideWatched: true },
    { categories: [categories[0]!] },
    { categories: categories.slice(1), hideShorts: true, hideWatched: true },
  ]
  let compared = 0
  for (const filter of filters) {
    for (const perPage of [2, 7]) {
      const all = await ids({ ...filter, page: 1, perPage: 100 }, 'walk')
      expect(all.length).toBeGreaterThan(0)
      for (let page = 1; page <= Math.ceil(all.length / perPage) + 1; page++) {
        const f = { ...filter, page, perPage }
        const expected = all.slice((page - 1) * perPage, page * perPage)
        expect(await ids(f, 'walk')).toEqual(expected)
        expect(await ids(f, 'gather')).toEqual(expected)
        expect(await ids(f, 'auto')).toEqual(expected)
        compared++
      }
    }
  }
  expect(compared).toBeGreaterThan(50)
})

/** Which branch of `auto`'s UNION ALL ran: the walk comes first. */
async function ranBranch(f: VideoFilter): Promise<'walk' | 'gather'> {
  const q = feedQueries(t.ctx.db, user.id, f).rows.toSQL()
  const params = q.params.map((p) => (typeof p === 'string' ? `'${p.replaceAll("'", "''")}'` : String(p)))
  const text = q.sql.replace(/\$(\d+)/g, (_, n) => params[Number(n) - 1]!)
  const [row] = rowsOf<Record<string, unknown>>(await t.ctx.db.execute(sql.raw(`explain (analyze, format json) ${text}`)))
  type Node = { 'One-Time Filter'?: string; 'Actual Loops': number; Plans?: Node[] }
  const raw = Object.values(row!)[0]
  const [{ Plan }] = (typeof raw === 'string' ? JSON.parse(raw) : raw) as [{ Plan: Node }]
  // each branch sits under a one-time filter on `deep`: the scan below the filter that passed ran
  const gates: Node[] = []
  const visit = (n: Node) => (n['One-Time Filter'] ? gates.push(n) : n.Plans?.forEach(visit))
  visit(Plan)
  expect(gates).toHaveLength(2)
  const loops = gates.map((g) => g.Plans![0]!['Actual Loops'])
  expect(loops.filter((n) => n > 0)).toHaveLength(1)
  return loops[0]! > 0 ? 'walk' : 'gather'
}

test('auto walks the first page of the whole feed and gathers when the filtered feed is small against the table', async () => {
  const [stats] = rowsOf<{ all: number }>(await t.ctx.db.execute(sql`select reltuples::float8 as "all" from pg_class where oid = 'youtube_videos'::regclass`))
  const all = Number(stats!.all)
  const size = async (f: Omit<VideoFilter, 'page' | 'perPage'>) => (await ids({ ...f, page: 1, perPage: 100 }, 'walk')).length
  const expected = async (f: VideoFilter) => (f.page * f.perPage * all > 2 * (await size(f)) ** 2 ? 'gather' : 'walk')
  const whole: VideoFilter = { page: 1, perPage: 3 }
  expect(await expected(whole)).toBe('walk')
  expect(await ranBranch(whole)).toBe('walk')
  // the smallest category: a few of the user's videos among all of the table's
  const counts = await Promise.all(categories.map(async (c) => [c, await size({ categories: [c] })] as const))
  const [smallest] = counts.sort((a, b) => a[1] - b[1])[0]!
  const narrow: VideoFilter = { categories: [smallest], page: 1, perPage: 48 }
  expect(await expected(narrow)).toBe('gather')
  expect(await ranBranch(narrow)).toBe('gather')
})

// Review additions: the cases the equivalence above does not reach.

test('a user who follows nothing gets empty pages every way (and no one else’s videos)', async () => {
  const nobody = await quickUser(t)
  for (const plan of ['walk', 'gather', 'auto'] as const) {
    for (const f of [{ page: 1, perPage: 5 }, { page: 3, perPage: 48, hideShorts: true }]) {
      expect(await (await feedQueries(t.ctx.db, nobody.id, f, plan).rows).map((r) => r.id)).toEqual([])
    }
  }
})

test('stale per-channel counts change only the choice of way, never the page', async () => {
  const c = youtubeChannelVideoCounts
  const saved = await t.ctx.db.select().from(c)
  try {
    // counts far too high (the walk is chosen), then all zero (gathering is chosen)
    for (const videos of [1_000_000, 0]) {
      await t.ctx.db.update(c).set({ videos })
      for (const f of [{ page: 1, perPage: 4 }, { page: 2, perPage: 9, hideWatched: true }, { page: 1, perPage: 3, categories: [categories[0]!] }]) {
        expect(await ids(f, 'auto')).toEqual(await ids(f, 'walk'))
      }
    }
  } finally {
    for (const row of saved) {
      await t.ctx.db.update(c).set({ videos: row.videos }).where(and(eq(c.channelId, row.channelId), eq(c.categoryId, row.categoryId), eq(c.kind, row.kind)))
    }
  }
})

test('videos published at the same instant keep one order (by id) every way, across page boundaries', async () => {
  const all = await ids({ page: 1, perPage: 100 }, 'walk')
  // every other video of the user's feed, from every channel, at one shared instant
  const tied = all.filter((_, i) => i % 2 === 0)
  await t.ctx.db.update(youtubeVideos).set({ publishedAt: new Date('2026-11-01T00:00:00Z') }).where(inArray(youtubeVideos.id, tied))
  const reordered = await ids({ page: 1, perPage: 100 }, 'walk')
  // (the fake's dates are all before that instant: the tied videos lead, in the id order of the database's collation)
  expect(new Set(reordered.slice(0, tied.length))).toEqual(new Set(tied))
  for (const perPage of [1, 3, 5]) {
    for (let page = 1; page <= Math.ceil(reordered.length / perPage); page++) {
      const expected = reordered.slice((page - 1) * perPage, page * perPage)
      for (const plan of ['gather', 'auto'] as const) expect(await ids({ page, perPage }, plan)).toEqual(expected)
    }
  }
})
