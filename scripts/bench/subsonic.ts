#!/usr/bin/env bun
/**
 * Subsonic API benchmark (a benchmark, not a test): 10,000 songs across 1,000 albums for one
 * user among several (3 more users with 1,000 songs each), facts already measured. Times, in
 * the same run:
 *
 *  - `search3` with an empty query and `songCount=500` (first page and a deep page),
 *    `getAlbumList2` `newest` of 500, and `getAlbum`, each through the app (app.request with an
 *    API key: sign-in, queries, shaping, JSON) against the bare SQL it runs (the same library
 *    queries called directly), as a ratio of medians (target ≤ 2×);
 *  - `stream`: time to the first byte over HTTP on loopback (target ≤ 20 ms).
 *
 *   bun scripts/bench/subsonic.ts [--runs 30] [--format json|xml]
 *   TEST_DATABASE_URL=postgres://... bun scripts/bench/subsonic.ts     # on PostgreSQL
 */
import { copyFile, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import { createApiToken } from '../../src/auth/bearer.ts'
import { users } from '../../src/auth/tables.ts'
import { setLogLevel } from '../../src/lib/logger.ts'
import { jobDir } from '../../src/music/files.ts'
import { albumNames, queryAlbums, queryArtists, querySongs } from '../../src/subsonic/library.ts'
import { createTestApp, serveTestApp } from '../../tests/support/app.ts'
import { songSource } from '../../tests/support/subsonic.ts'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '30' }, format: { type: 'string', default: 'json' } } })
const RUNS = Number(values.runs)
setLogLevel('warn')

const t = await createTestApp()
const db = t.ctx.db

async function seedUser(email: string, songs: number, albums: number) {
  const [user] = await db.insert(users).values({ email, passwordHash: null, verifiedAt: new Date() }).returning({ id: users.id })
  const id = user!.id
  await db.execute(sql`insert into music_jobs (user_id, video_url, title, artist, album, grouping, track_number, year, output_file, progress, completed, created_at)
    select ${id}, 'https://example.com/v', 'Song ' || i, 'Artist ' || ((i % ${albums}) % 200), 'Album ' || (i % ${albums}),
      'Genre ' || (i % 20), (i / ${albums}) + 1, 1970 + (i % 50), 'output/song ' || i || '.mp3', 100,
      now() - make_interval(secs => i), now() - make_interval(secs => i)
    from generate_series(1, ${songs}) as i`)
  await db.execute(sql`insert into subsonic_songs (job_id, track, user_id, file, size, duration, bit_rate, track_gain, track_peak)
    select id, 0, user_id, output_file, 5000000, 240, 160, -6.5, 0.9 from music_jobs where user_id = ${id}`)
  return id
}

const started = performance.now()
const userId = await seedUser('bench@example.com', 10_000, 1_000)
for (let i = 0; i < 3; i++) await seedUser(`other${i}@example.com`, 1_000, 100)
await db.execute(sql`analyze`)
console.log(`seeded 13,000 songs in ${((performance.now() - started) / 1000).toFixed(1)} s (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`)
const { token } = await createApiToken(db, userId, 'bench')

// one real file for stream
const [first] = await querySongs(db, userId, { page: { limit: 1, offset: 0 } })
await mkdir(join(jobDir(t.ctx.env.DATA_DIR, userId, first!.job_id), 'output'), { recursive: true })
await copyFile(await songSource(), join(jobDir(t.ctx.env.DATA_DIR, userId, first!.job_id), first!.file))
const [album] = await queryAlbums(db, userId, { page: { limit: 1, offset: 500 } })

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
async function time(fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 3; i++) await fn()
  const samples: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const s = performance.now()
    await fn()
    samples.push(performance.now() - s)
  }
  return samples
}
const call = (method: string, params: Record<string, string>) => async () => {
  const res = await t.app.request(`/rest/${method}?${new URLSearchParams({ apiKey: token, f: values.format!, c: 'bench', v: '1.16.1', ...params })}`)
  const body = await res.text()
  if (!body.includes('status":"ok') && !body.includes('status="ok"')) throw new Error(`${method} failed: ${body.slice(0, 300)}`)
}

const cases: { name: string; api: () => Promise<unknown>; bare: () => Promise<unknown> }[] = [
  {
    name: 'search3 "" songCount=500 (page 1)',
    api: call('search3', { query: '', songCount: '500' }),
    bare: () =>
      Promise.all([
        queryArtists(db, userId, { page: { limit: 20, offset: 0 } }),
        queryAlbums(db, userId, { page: { limit: 20, offset: 0 } }),
        querySongs(db, userId, { page: { limit: 500, offset: 0 } }),
      ]),
  },
  {
    name: 'search3 "" songCount=500 (page 19)',
    api: call('search3', { query: '', songCount: '500', songOffset: '9000', artistCount: '0', albumCount: '0' }),
    bare: () => querySongs(db, userId, { page: { limit: 500, offset: 9000 } }),
  },
  {
    name: 'getAlbumList2 newest size=500',
    api: call('getAlbumList2', { type: 'newest', size: '500' }),
    bare: () => queryAlbums(db, userId, { order: sql`newest_ms desc, album_key`, page: { limit: 500, offset: 0 } }),
  },
  {
    name: 'getAlbum (10 songs)',
    api: call('getAlbum', { id: `al-${album!.album_key}` }),
    bare: async () => {
      const names = await albumNames(db, userId, album!.album_key)
      const where = sql`artist = ${names!.artist} and album = ${names!.album}`
      await queryAlbums(db, userId, { where })
      await querySongs(db, userId, { where, order: sql`track_number nulls last, completed, job_id, track` })
    },
  },
]

console.log(`\n${RUNS} runs each, medians (format ${values.format}); bare SQL = the library queries the method runs, called directly\n`)
console.log('| method | bare SQL p50 | API p50 | ratio |')
console.log('|---|---|---|---|')
for (const c of cases) {
  // alternate so that both see the same machine load
  const bare = await time(c.bare)
  const api = await time(c.api)
  const bare2 = await time(c.bare)
  const b = median([...bare, ...bare2])
  const a = median(api)
  console.log(`| ${c.name} | ${b.toFixed(2)} ms | ${a.toFixed(2)} ms | ${(a / b).toFixed(2)}× |`)
}

const server = serveTestApp(t)
const url = `http://127.0.0.1:${server.port}/rest/stream?${new URLSearchParams({ apiKey: token, id: `tr-${first!.job_id}`, c: 'bench', v: '1.16.1' })}`
const ttfb = await time(async () => {
  const s = performance.now()
  const res = await fetch(url)
  const reader = res.body!.getReader()
  await reader.read()
  const took = performance.now() - s
  await reader.cancel()
  return took
})
console.log(`\nstream time to first byte over HTTP (loopback): p50 ${median(ttfb).toFixed(2)} ms`)
server.stop(true)
await t.close()
process.exit(0)
