#!/usr/bin/env bun
/**
 * The feed with a group filter and muted words (a benchmark, not a test), against the plain feed
 * in the same run, on PostgreSQL over a database seeded as the feed benchmark's (scripts/bench/feed.ts: 1M
 * videos, 5,000 channels, a user following 500 of them; seeded here with `feed.ts --keep` when
 * it is not there yet, kept afterwards for the next run).
 *
 * Through the app's own routes (the app as its own process on loopback): a group of 100 of the
 * followed channels (POST /api/youtube/groups) and 100 muted words (PUT /api/youtube/filters),
 * two of which hide about 1 in 35 of the feed's videos each, the rest nothing. Then, alternating per request, page 1
 * and page 200 of GET /api/youtube/videos/list:
 *   plain (no words saved at that moment: the words are put back between the two halves),
 *   group, muted (100 words), group + muted;
 * each against its bare SQL (the endpoint's two statements at once, as feed.ts times them).
 * Feed targets (issue 36): page 1 <= 2x its bare SQL, page 200 < 30 ms.
 *
 *   bun scripts/bench/feed-groups.ts [--url postgres://...] [--database tunefeed_bench_groups] [--runs 100]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import postgres from 'postgres'
import { createSession, SESSION_COOKIE } from '../../src/auth/session.ts'
import { openPostgres } from '../../src/db/client.ts'
import { setLogLevel } from '../../src/lib/logger.ts'
import { feedQueries, type VideoFilter } from '../../src/youtube/queries/feed.ts'

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    database: { type: 'string', default: 'tunefeed_bench_groups' },
    runs: { type: 'string', default: '100' },
  },
})
setLogLevel('warn')
const ADMIN_URL = values.url ?? process.env.BENCH_DATABASE_URL ?? 'postgres://tunefeed:tunefeed-test@127.0.0.1:5432/tunefeed'
const RUNS = Number(values.runs)
const url = (() => {
  const u = new URL(ADMIN_URL)
  u.pathname = `/${values.database}`
  return u.toString()
})()

async function benchUser(): Promise<string | undefined> {
  const sql = postgres(url, { onnotice: () => {}, max: 1 })
  const [row] = await sql`select id from users where email = 'bench@example.com'`.catch(() => [])
  await sql.end()
  return row?.id as string | undefined
}

let userId = await benchUser()
if (!userId) {
  console.log('seeding the feed benchmark database (scripts/bench/feed.ts --keep)…')
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'feed.ts'), '--keep', '--sql-only', '--no-quota', '--runs', '1', '--explain', '', '--database', values.database!, '--url', ADMIN_URL], {
    stdout: 'ignore',
    stderr: 'inherit',
  })
  if ((await proc.exited) !== 0) throw new Error('seeding failed')
  userId = await benchUser()
  if (!userId) throw new Error('no bench user after seeding')
}

async function startApp(): Promise<{ base: string; stop(): Promise<void> }> {
  const port = 20000 + Math.floor(Math.random() * 20000)
  const dataDir = mkdtempSync(join(tmpdir(), 'tunefeed-bench-groups-'))
  const proc = Bun.spawn([process.execPath, 'src/main.ts'], {
    cwd: join(import.meta.dir, '../..'),
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SCHEDULER: 'false',
      YTDLP_UPDATE: 'off',
      YTDLP_CANARY_URL: 'http://127.0.0.1:9/canary',
      RATE_LIMIT_MAX: '1000000',
      DATA_DIR: dataDir,
      APP_SECRET: 'bench-secret-bench-secret-bench-secret-00',
    },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const base = `http://127.0.0.1:${port}`
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) {
        return {
          base,
          async stop() {
            proc.kill('SIGTERM')
            await proc.exited
            rmSync(dataDir, { recursive: true, force: true })
          },
        }
      }
    } catch {}
    await Bun.sleep(100)
  }
  proc.kill('SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
  throw new Error('app did not start')
}

const database = await openPostgres(url, { migrate: false, max: 4 })
const raw = postgres(url, { onnotice: () => {}, max: 2, connection: { jit: 'off' } })
const { token } = await createSession(database.db, userId)
const cookie = `${SESSION_COOKIE}=${token}`
const app = await startApp()

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown; ms: number }> {
  const t0 = performance.now()
  const res = await fetch(`${app.base}${path}`, {
    method,
    headers: { cookie, ...(body ? { 'content-type': 'application/json', origin: app.base } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  })
  const text = await res.text()
  const ms = performance.now() - t0
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return { status: res.status, json: text ? JSON.parse(text) : null, ms }
}

const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!
const fmt = (ms: number) => `${ms.toFixed(2)} ms`

try {
  // a group of 100 followed channels (every fifth of the 500), 100 muted words: two title words, 98 that match nothing
  const followed = (await raw`select channel_id from youtube_subscriptions where user_id = ${userId} order by channel_id`).map((r) => r.channel_id as string)
  const groups = (await call('GET', '/api/youtube/groups')).json as { groups: { id: string; name: string }[] }
  for (const g of groups.groups.filter((g) => g.name === 'bench group')) await call('DELETE', `/api/youtube/groups/${g.id}`)
  const group = (await call('POST', '/api/youtube/groups', { name: 'bench group', channelIds: followed.filter((_, i) => i % 5 === 0) })).json as { id: string }
  const words = ['topica0', 'topicb0', ...Array.from({ length: 98 }, (_, i) => `nothing${i}word`)]
  const saveWords = async (mutedWords: string[]) => (await call('PUT', '/api/youtube/filters', { mutedWords })).ms
  const saveMs = await saveWords(words)
  console.log(`PUT /filters with ${words.length} words (works out the muted videos of ${followed.length} channels): ${Math.round(saveMs)} ms`)
  const [{ n: mutedRows }] = await raw`select count(*)::int as n from youtube_muted_videos where user_id = ${userId}`
  console.log(`muted videos: ${mutedRows}`)

  const cases: { name: string; filter: Partial<VideoFilter>; query: string; words: boolean }[] = [
    { name: 'plain feed', filter: {}, query: '', words: false },
    { name: 'group (100 of 500 channels)', filter: { groupId: group.id }, query: `&group=${group.id}`, words: false },
    { name: '100 muted words', filter: { muted: true }, query: '', words: true },
    { name: 'group + 100 muted words', filter: { groupId: group.id, muted: true }, query: `&group=${group.id}`, words: true },
  ]
  const results = new Map<string, { sql: number[]; http: number[] }>()
  // the cases without words first (words cleared), then those with them (words saved again)
  for (const withWords of [false, true]) {
    await saveWords(withWords ? words : [])
    const here = cases.filter((c) => c.words === withWords)
    for (const page of [1, 200]) {
      const statements = here.map((c) => {
        const q = feedQueries(database.db, userId!, { ...c.filter, page, perPage: 48 } as VideoFilter)
        return [q.rows.toSQL(), q.total.toSQL()]
      })
      for (let i = 0; i < RUNS + 10; i++) {
        // alternating the cases request by request, so a slow moment falls on each
        for (const [k, c] of here.entries()) {
          const key = `${c.name}, page ${page}`
          const r = results.get(key) ?? { sql: [], http: [] }
          results.set(key, r)
          const t0 = performance.now()
          await Promise.all(statements[k]!.map((st) => raw.unsafe(st.sql, st.params as never[])))
          const sqlMs = performance.now() - t0
          const { ms } = await call('GET', `/api/youtube/videos/list?page=${page}&per_page=48${c.query}`)
          if (i >= 10) {
            r.sql.push(sqlMs)
            r.http.push(ms)
          }
        }
      }
    }
  }
  const plain = (page: number) => p(results.get(`plain feed, page ${page}`)!.http, 0.5)
  console.log(`\nthe feed with a group and muted words (${RUNS} runs each, alternating; 1M videos, 500 followed channels)`)
  console.log('| case | SQL p50 / p95 | HTTP p50 / p95 | HTTP / SQL p50 | HTTP / plain feed p50 | target |')
  console.log('|---|---|---|---|---|---|')
  for (const [key, r] of results) {
    const page = Number(key.split('page ')[1])
    const h = p(r.http, 0.5)
    const s = p(r.sql, 0.5)
    const ok = page === 1 ? h <= 2 * s : h < 30
    console.log(
      `| ${key} | ${fmt(s)} / ${fmt(p(r.sql, 0.95))} | ${fmt(h)} / ${fmt(p(r.http, 0.95))} | ${(h / s).toFixed(2)} | ${(h / plain(page)).toFixed(2)} | ${page === 1 ? '<= 2x SQL' : '< 30 ms'} ${ok ? 'OK' : 'OVER'} |`,
    )
  }
  await saveWords([])
  await call('DELETE', `/api/youtube/groups/${group.id}`)
} finally {
  await app.stop()
  await raw.end()
  await database.close()
}
process.exit(0)
