#!/usr/bin/env bun
/**
 * Feed benchmark on PostgreSQL (a benchmark, not a test):
 *
 *  1. Seeds a database (5,000 channels, 1,000,000 videos, a user with 500
 *     subscriptions and thousands of likes, queue entries and watches).
 *  2. Times the feed's bare SQL (the same two statements the endpoint runs:
 *     the page and the count, at once on two connections; unprepared as
 *     drizzle sends them, and prepared) for page 1 and page 200, with and
 *     without filters, then `GET /api/youtube/videos/list` for the same pages against
 *     the app running as its own process on loopback, one client at a time
 *     (for the ratio) and with several at once (throughput).
 *  3. Refreshes 500 channels of the fake YouTube with 5 new videos each and
 *     counts the quota units spent.
 *
 *   bun scripts/bench/feed.ts [--url postgres://...] [--database tunefeed_bench] [--keep] [--reuse] [--runs 200] [--sql-only] [--explain docs/bench-feed-explain.txt]
 *
 * The database is BENCH_DATABASE_URL / --url (default: the test runner's
 * local role, database tunefeed_bench, created and dropped here).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import postgres from 'postgres'
import { createSession, SESSION_COOKIE } from '../../src/auth/session.ts'
import { openPostgres } from '../../src/db/client.ts'
import { parseEnv } from '../../src/env.ts'
import { setLogLevel } from '../../src/lib/logger.ts'
import { Hub } from '../../src/ws/hub.ts'
import { refreshChannel } from '../../src/youtube/refresh.ts'
import { feedQueries, type VideoFilter } from '../../src/youtube/queries/feed.ts'
import { quotaStatus } from '../../src/youtube/quota.ts'
import { startFakeYoutube } from '../fake-youtube.ts'

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    keep: { type: 'boolean', default: false },
    /** Use the database a previous `--keep` run left, instead of seeding again. */
    reuse: { type: 'boolean', default: false },
    /** Skip the quota part. */
    'no-quota': { type: 'boolean', default: false },
    explain: { type: 'string', default: 'docs/bench-feed-explain.txt' },
    runs: { type: 'string', default: '200' },
    /** The seeded database's name (two benchmarks at once need two). */
    database: { type: 'string', default: 'tunefeed_bench' },
    /** Time the bare SQL only (no app, no HTTP): quicker runs to alternate two branches. */
    'sql-only': { type: 'boolean', default: false },
  },
})
setLogLevel('warn')
const ADMIN_URL = values.url ?? process.env.BENCH_DATABASE_URL ?? 'postgres://tunefeed:tunefeed-test@127.0.0.1:5432/tunefeed'
const RUNS = Number(values.runs)
const CHANNELS = 5000
const VIDEOS = 1_000_000
const CATEGORIES = [1, 2, 10, 15, 17, 19, 20, 22, 23, 24, 25, 26, 27, 28, 29]
/** One of these ends each title: a `q` of one of them matches 1 video in 50. */
const TITLE_WORDS = Array.from({ length: 50 }, (_, i) => `topic${String.fromCharCode(97 + (i % 26))}${Math.floor(i / 26)}`)

function dbUrl(name: string) {
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  return url.toString()
}

/** Drops the database, and creates it empty again unless `dropOnly`. */
async function recreate(name: string, dropOnly = false) {
  const admin = postgres(ADMIN_URL, { onnotice: () => {}, max: 1 })
  await admin.unsafe(`drop database if exists ${name} with (force)`)
  if (!dropOnly) await admin.unsafe(`create database ${name}`)
  await admin.end()
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
const fmt = (ms: number) => `${ms.toFixed(2)} ms`

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b)
  return { p50: pct(sorted, 50), p95: pct(sorted, 95) }
}

// ---- 1. seed ---------------------------------------------------------------

async function seed(sql: postgres.Sql) {
  const t0 = performance.now()
  await sql.unsafe(`
    insert into youtube_video_categories (id, name)
    select id, 'Category ' || id from unnest(array[${CATEGORIES.join(',')}]) id`)
  await sql.unsafe(`
    insert into youtube_channels (id, title, handle, thumbnail, uploads_playlist_id, refreshed_at)
    select 'UC' || lpad(g::text, 22, '0'), 'Channel ' || g, '@bench-' || g, 'https://example.com/c/' || g || '.jpg',
           'UU' || lpad(g::text, 22, '0'), now()
    from generate_series(1, ${CHANNELS}) g`)
  // videos spread over five years; ids, channels and categories spread by multiplicative hashing
  await sql.unsafe(`
    insert into youtube_videos (id, channel_id, title, description, thumbnail, published_at, category_id, duration, kind)
    select lpad(to_hex(g), 11, '0'),
           'UC' || lpad((1 + (g::bigint * 7919) % ${CHANNELS})::text, 22, '0'),
           'Video number ' || g || ' about ' || (array[${TITLE_WORDS.map((w) => `'${w}'`).join(',')}])[1 + (g / 7) % ${TITLE_WORDS.length}],
           'A description of video ' || g || ' that is a little longer, as descriptions are.',
           'https://example.com/v/' || g || '.jpg',
           timestamptz '2026-01-01' - make_interval(secs => ((g::bigint * 104729) % (5 * 365 * 86400))::double precision),
           (array[${CATEGORIES.join(',')}])[1 + (g::bigint * 31) % ${CATEGORIES.length}],
           60 + g % 1200,
           -- one in 5 a Short, one in 200 a stream
           case when g % 5 = 0 then 'short' when g % 200 = 1 then 'live' else 'video' end
    from generate_series(1, ${VIDEOS}) g`)
  await sql.unsafe(`
    insert into youtube_channel_video_counts (channel_id, category_id, kind, videos)
    select channel_id, category_id, kind, count(*)::int from youtube_videos group by 1, 2, 3`)
  const [user] = await sql`
    insert into users (email, password_hash, verified_at) values ('bench@example.com', '!', now()) returning id`
  const userId = user!.id as string
  // every tenth channel: 500 subscriptions
  await sql.unsafe(`
    insert into youtube_subscriptions (user_id, channel_id, source)
    select '${userId}', 'UC' || lpad(g::text, 22, '0'), 'manual' from generate_series(10, ${CHANNELS}, 10) g`)
  // marks on every n-th video of the subscribed channels, one second apart (a watch also copies
  // its video's channel, category and kind: docs/decisions/130)
  const marks = async (table: string, count: number, step: number, copied = '') =>
    sql.unsafe(`
      insert into ${table} (user_id, video_id, created_at${copied})
      select '${userId}', id, timestamptz '2026-01-01' + make_interval(secs => rn::double precision)${copied}
      from (select id, channel_id, category_id, kind, row_number() over (order by id) as rn from youtube_videos
            where channel_id in (select channel_id from youtube_subscriptions where user_id = '${userId}')) v
      where rn % ${step} = 0
      limit ${count}`)
  await marks('youtube_likes', 3000, 3)
  await marks('youtube_queue_entries', 2000, 5)
  await marks('youtube_watches', 5000, 2, ', channel_id, category_id, kind')
  await sql.unsafe('vacuum analyze')
  const [counts] = await sql`
    select (select count(*) from youtube_channels)::int as channels, (select count(*) from youtube_videos)::int as videos,
           (select count(*) from youtube_subscriptions)::int as subscriptions, (select count(*) from youtube_likes)::int as likes,
           (select count(*) from youtube_queue_entries)::int as queued, (select count(*) from youtube_watches)::int as watches`
  console.log(`seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s:`, counts)
  return userId
}

// ---- 2. feed: SQL and HTTP -------------------------------------------------------

const scenarios: { name: string; filter: Omit<VideoFilter, 'page' | 'perPage'>; query: string }[] = [
  { name: 'feed', filter: {}, query: '' },
  { name: 'feed, 3 categories', filter: { categories: [10, 20, 27] }, query: '&video_categories=10,20,27' },
  { name: 'liked only', filter: { likedOnly: true }, query: '&liked_only=true' },
  { name: 'queued only', filter: { queuedOnly: true }, query: '&queued_only=true' },
  { name: 'hide shorts', filter: { hideShorts: true }, query: '&hide_shorts=true' },
  { name: 'hide watched', filter: { hideWatched: true }, query: '&hide_watched=true' },
  { name: 'q (1 title in 50)', filter: { q: 'topicc0' }, query: '&q=topicc0' },
  // the same share of titles, among which 1 in 50 of the user's videos (the one above: none of them)
  { name: 'q rare (1 in 50 of the feed)', filter: { q: 'topica0' }, query: '&q=topica0' },
  // a word of every title
  { name: 'q common (every title)', filter: { q: 'video' }, query: '&q=video' },
]

async function startApp(url: string): Promise<{ port: number; stop(): Promise<void> }> {
  const port = 20000 + Math.floor(Math.random() * 20000)
  const dataDir = mkdtempSync(join(tmpdir(), 'tunefeed-bench-'))
  const child = spawn(process.execPath, ['src/main.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SCHEDULER: 'false',
      YTDLP_UPDATE: 'off',
      DATA_DIR: dataDir,
      APP_SECRET: 'bench-secret-bench-secret-bench-secret-00',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/health`)).ok) {
        return {
          port,
          stop: () =>
            new Promise<void>((resolve) => {
              child.once('exit', () => {
                rmSync(dataDir, { recursive: true, force: true })
                resolve()
              })
              child.kill('SIGTERM')
            }),
        }
      }
    } catch {}
    await Bun.sleep(100)
  }
  child.kill('SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
  throw new Error('app did not start')
}

async function benchFeed(url: string, userId: string) {
  const database = await openPostgres(url, { migrate: false, max: 4 })
  const raw = postgres(url, { onnotice: () => {}, max: 2, connection: { jit: 'off' } }) // as the app connects
  const { token } = await createSession(database.db, userId)
  const sqlOnly = values['sql-only']
  const app = sqlOnly ? null : await startApp(url)
  const cookie = `${SESSION_COOKIE}=${token}`
  const rows: string[][] = []
  const explains: string[] = []
  try {
    // the fixed cost of any authenticated request (session lookup, middleware, loopback)
    const base: number[] = []
    if (app) {
    for (let i = 0; i < RUNS + 10; i++) {
      const t0 = performance.now()
      const res = await fetch(`http://127.0.0.1:${app.port}/api/auth/session`, { headers: { cookie } })
      await res.arrayBuffer()
      if (i >= 10) base.push(performance.now() - t0)
    }
    const b = summary(base)
    console.log(`GET /api/auth/session (baseline): ${fmt(b.p50)} / ${fmt(b.p95)}`)
    rows.push(['GET /api/auth/session (baseline)', '-', '-', `${fmt(b.p50)} / ${fmt(b.p95)}`, '-', '-', '-', '-'])
    }
    for (const s of scenarios) {
      for (const page of [1, 200]) {
        const filter: VideoFilter = { ...s.filter, page, perPage: 48 }
        const q = feedQueries(database.db, userId, filter)
        const statements = [q.rows.toSQL(), q.total.toSQL()]
        // bare SQL: the two statements at once on two connections, as the endpoint sends them
        // (drizzle's postgres.js driver does not use named prepared statements), and prepared
        const bare = async (prepare: boolean) => {
          const times: number[] = []
          for (let i = 0; i < RUNS + 10; i++) {
            const t0 = performance.now()
            await Promise.all(statements.map((st) => raw.unsafe(st.sql, st.params as never[], { prepare })))
            if (i >= 10) times.push(performance.now() - t0)
          }
          return times
        }
        const sqlTimes = await bare(false)
        const preparedTimes = await bare(true)
        for (const st of statements) {
          const plan = await raw.unsafe(`explain (analyze, buffers) ${st.sql}`, st.params as never[])
          explains.push(`-- ${s.name}, page ${page}\n-- ${st.sql}\n-- params: ${JSON.stringify(st.params)}\n${plan.map((r) => r['QUERY PLAN']).join('\n')}\n`)
        }
        const sq = summary(sqlTimes)
        const pr = summary(preparedTimes)
        if (!app) {
          rows.push([`${s.name}, page ${page}`, `${fmt(sq.p50)} / ${fmt(sq.p95)}`, `${fmt(pr.p50)} / ${fmt(pr.p95)}`, '-', '-', '-', '-', '-'])
          console.log(rows.at(-1)!.join(' | '))
          continue
        }
        // HTTP, one client at a time
        const path = `http://127.0.0.1:${app.port}/api/youtube/videos/list?page=${page}&per_page=48${s.query}`
        const httpTimes: number[] = []
        let bytes = 0
        for (let i = 0; i < RUNS + 10; i++) {
          const t0 = performance.now()
          const res = await fetch(path, { headers: { cookie } })
          const body = await res.arrayBuffer()
          if (!res.ok) throw new Error(`${res.status} ${new TextDecoder().decode(body)}`)
          bytes = body.byteLength
          if (i >= 10) httpTimes.push(performance.now() - t0)
        }
        // HTTP, 8 clients at once: throughput
        const concurrent = 8
        const perClient = Math.ceil(RUNS / concurrent)
        const loadTimes: number[] = []
        const t0 = performance.now()
        await Promise.all(
          Array.from({ length: concurrent }, async () => {
            for (let i = 0; i < perClient; i++) {
              const t1 = performance.now()
              const res = await fetch(path, { headers: { cookie } })
              await res.arrayBuffer()
              loadTimes.push(performance.now() - t1)
            }
          }),
        )
        const rps = (concurrent * perClient) / ((performance.now() - t0) / 1000)
        const ht = summary(httpTimes)
        const ld = summary(loadTimes)
        rows.push([
          `${s.name}, page ${page}`,
          `${fmt(sq.p50)} / ${fmt(sq.p95)}`,
          `${fmt(pr.p50)} / ${fmt(pr.p95)}`,
          `${fmt(ht.p50)} / ${fmt(ht.p95)}`,
          (ht.p50 / sq.p50).toFixed(2),
          `${fmt(ld.p50)} / ${fmt(ld.p95)}`,
          rps.toFixed(0),
          `${(bytes / 1024).toFixed(1)} KB`,
        ])
        console.log(rows.at(-1)!.join(' | '))
      }
    }
  } finally {
    await app?.stop()
    await raw.end()
    await database.close()
  }
  if (values.explain) {
    writeFileSync(values.explain, `EXPLAIN (ANALYZE, BUFFERS) of the feed's statements, from scripts/bench/feed.ts\n\n${explains.join('\n')}`)
    console.log(`plans written to ${values.explain}`)
  }
  return rows
}

// ---- 3. quota: 500 channels with 5 new videos each --------------------------------

async function benchQuota() {
  const name = 'tunefeed_bench_quota'
  await recreate(name)
  const url = dbUrl(name)
  const database = await openPostgres(url, { max: 4 })
  const fake = await startFakeYoutube({ media: false, generatedChannels: 500, now: new Date('2026-01-15T12:00:00Z') })
  try {
    const env = parseEnv({ ...fake.env, DATABASE_URL: url, LOG_LEVEL: 'warn' })
    const ctx = { db: database.db, env, hub: new Hub() }
    const channels = [...fake.channels.values()].filter((c) => c.subscriptions?.length === 0 && !c.handle.startsWith('@viewer')).slice(0, 500)
    const { youtubeChannels } = await import('../../src/youtube/tables.ts')
    await database.db.insert(youtubeChannels).values(
      channels.map((c) => ({ id: c.id, title: c.title, handle: c.handle, uploadsPlaylistId: `UU${c.id.slice(2)}` })),
    )
    const spent = async () => (await quotaStatus(database.db, env.YOUTUBE_DAILY_QUOTA)).units
    let t0 = performance.now()
    for (const c of channels) await refreshChannel(ctx, { channelId: c.id })
    const first = await spent()
    const firstSeconds = (performance.now() - t0) / 1000
    for (const c of channels) fake.addUploads(c.id, 5)
    t0 = performance.now()
    let added = 0
    for (const c of channels) {
      const outcome = await refreshChannel(ctx, { channelId: c.id })
      if (outcome.status === 'done') added += outcome.added
    }
    const units = (await spent()) - first
    const seconds = (performance.now() - t0) / 1000
    console.log(
      `quota: first refresh of ${channels.length} channels ${first} units (${firstSeconds.toFixed(1)} s); ` +
        `then 5 new videos each: ${added} videos for ${units} units = ${(units / channels.length).toFixed(2)} units per channel (${seconds.toFixed(1)} s)`,
    )
    return { channels: channels.length, first, added, units, perChannel: units / channels.length }
  } finally {
    await fake.stop()
    await database.close()
    await recreate(name, true)
  }
}

// ---- run --------------------------------------------------------------------------

const name = values.database
const url = dbUrl(name)
let userId: string | undefined
if (values.reuse) {
  const sql = postgres(url, { onnotice: () => {}, max: 1 })
  const [row] = await sql`select id from users where email = 'bench@example.com'`.catch(() => [])
  await sql.end()
  userId = row?.id
  if (userId) console.log('reusing the seeded database')
}
if (!userId) {
  await recreate(name)
  const migrated = await openPostgres(url, { max: 1 })
  await migrated.close()
  const sql = postgres(url, { onnotice: () => {}, max: 1 })
  userId = await seed(sql)
  await sql.end()
}
console.log(`\nfeed (runs: ${RUNS}; p50 / p95)`)
console.log('case | SQL as sent | SQL prepared | HTTP 1 client | HTTP/SQL p50 | HTTP 8 clients | req/s at 8 | body')
const table = await benchFeed(url, userId)
const quota = values['no-quota'] ? null : await benchQuota()
if (!values.keep && !values.reuse) await recreate(name, true)

console.log('\n| case | SQL p50 / p95 (as sent) | SQL p50 / p95 (prepared) | HTTP p50 / p95 (1 client) | HTTP/SQL p50 | HTTP p50 / p95 (8 clients) | req/s (8 clients) | body |')
console.log('|---|---|---|---|---|---|---|---|')
for (const r of table) console.log(`| ${r.join(' | ')} |`)
if (quota) console.log(`\nquota: ${quota.units} units for ${quota.channels} channels with 5 new videos each = ${quota.perChannel.toFixed(2)} units per channel`)
process.exit(0)
