#!/usr/bin/env bun
/**
 * Players benchmark (a benchmark, not a test; issue 35's closing note). In one run:
 *
 *  1. `stream` transcoded on the fly, time to the first byte over HTTP on loopback (ffmpeg's start
 *     included) on a 3-minute 192 kbit/s MP3 made by ffmpeg: with `timeOffset=90` and with
 *     `maxBitRate=128` (target ≤ 300 ms p50), each against ffmpeg run by hand on the same file with
 *     the same arguments (time to its first byte on stdout), as a ratio of medians; and the stored
 *     file as it is (no change asked) for scale.
 *  2. `getPodcasts` (`includeEpisodes`) with 20 podcast channels of 100 episodes each, over HTTP
 *     with an API key (target ≤ 30 ms p50), against `ping` (sign-in and the envelope only) in the
 *     same run.
 *
 *   bun scripts/bench/phones.ts [--runs 30]
 *   TEST_DATABASE_URL=postgres://... bun scripts/bench/phones.ts     # on PostgreSQL
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import { createApiToken } from '../../src/auth/bearer.ts'
import { users } from '../../src/auth/tables.ts'
import { rowsOf } from '../../src/db/rows.ts'
import { setLogLevel } from '../../src/lib/logger.ts'
import { jobDir } from '../../src/music/files.ts'
import { episodesOf, podcastsOf } from '../../src/subsonic/methods/podcast-queries.ts'
import { transcodesRunning } from '../../src/subsonic/transcode.ts'
import { cutOf, episodeDir, episodeFile } from '../../src/youtube/listen/episode-queries.ts'
import { DEFAULT_SPONSORBLOCK } from '../../src/youtube/listen/schema.ts'
import { createTestApp, serveTestApp } from '../../tests/support/app.ts'
import { makeTone } from '../../tests/support/media.ts'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '30' }, only: { type: 'string' } } })
const RUNS = Number(values.runs)
const CHANNELS = 20
const EPISODES = 100
setLogLevel('warn')

const t = await createTestApp()
const db = t.ctx.db
const server = serveTestApp(t)
const base = server.url.href.replace(/\/$/, '')
const kind = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'

const [user] = await db.insert(users).values({ email: 'bench@example.com', passwordHash: null, verifiedAt: new Date() }).returning({ id: users.id })
const userId = user!.id
const { token } = await createApiToken(db, userId, 'bench')

// --- a 3-minute song, as a finished job with its measured facts ---
const [job] = rowsOf<{ id: string }>(
  await db.execute(sql`insert into music_jobs (user_id, video_url, title, artist, album, output_file, progress, completed)
  values (${userId}, 'https://example.com/v', 'Three Minutes', 'Bench', 'Bench', 'output/Bench - Three Minutes.mp3', 100, now()) returning id`),
)
const dir = jobDir(t.ctx.env.DATA_DIR, userId, job!.id)
await mkdir(join(dir, 'output'), { recursive: true })
const song = join(dir, 'output', 'Bench - Three Minutes.mp3')
let made = performance.now()
await makeTone(song, 180)
console.log(`made the 3-minute 192 kbit/s MP3 with ffmpeg in ${((performance.now() - made) / 1000).toFixed(1)} s`)
await db.execute(sql`insert into subsonic_songs (job_id, track, user_id, file, size, duration, bit_rate, track_gain, track_peak)
  values (${job!.id}, 0, ${userId}, 'output/Bench - Three Minutes.mp3', ${Bun.file(song).size}, 180, 192, -6.5, 0.9)`)

// --- 20 followed channels, each a podcast of its 100 newest videos, all in the feed ---
made = performance.now()
const cut = cutOf(DEFAULT_SPONSORBLOCK)
const ext = episodeFile('x', cut).split('.')[1]!
await mkdir(episodeDir(t.ctx), { recursive: true })
for (let c = 0; c < CHANNELS; c++) {
  const channelId = `UCbenchbenchbenchbench${String(c).padStart(2, '0')}`
  await db.execute(sql`insert into youtube_channels (id, title, thumbnail) values (${channelId}, ${`Bench Channel ${c}`}, '')`)
  await db.execute(sql`insert into youtube_subscriptions (user_id, channel_id, source) values (${userId}, ${channelId}, 'manual')`)
  await db.execute(sql`insert into youtube_videos (id, channel_id, title, description, published_at, category_id, duration, kind)
    select 'b' || lpad(${c}::text, 2, '0') || lpad(i::text, 8, '0'), ${channelId}, 'Episode ' || i || ' & more <news>', repeat('A description line. ', 40),
      now() - make_interval(hours => i + ${c}), 22, 1800 + i, 'video'
    from generate_series(1, ${EPISODES + 20}) as i`)
  await db.execute(sql`insert into youtube_podcasts (user_id, channel_id, enabled, keep_last) values (${userId}, ${channelId}, true, ${EPISODES})`)
  await db.execute(sql`insert into youtube_podcast_episodes (video_id, cut, state, file, size, duration, played_at)
    select v.id, ${cut}, 'ready', v.id || '.' || ${ext} || '.mp3', 200000, v.duration - 30, now() - interval '1 day'
    from youtube_videos v where v.channel_id = ${channelId}`)
}
const ids = rowsOf<{ file: string }>(await db.execute(sql`select file from youtube_podcast_episodes`))
for (const { file } of ids) await writeFile(join(episodeDir(t.ctx), file), new Uint8Array(16))
await db.execute(sql`analyze`)
console.log(`seeded ${CHANNELS} channels × ${EPISODES} episodes in ${((performance.now() - made) / 1000).toFixed(1)} s (${kind})`)

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!
async function time(fn: () => Promise<number | undefined>): Promise<number[]> {
  for (let i = 0; i < 3; i++) await fn()
  const samples: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const s = performance.now()
    const took = await fn()
    samples.push(took ?? performance.now() - s)
  }
  return samples
}
const rest = (method: string, params: Record<string, string> = {}) =>
  `${base}/rest/${method}?${new URLSearchParams({ apiKey: token, c: 'bench', v: '1.16.1', f: 'json', ...params })}`

/** Time to the first byte of a stream answer; `transcoded` checks it was made on the fly (`Accept-Ranges: none`) or not. */
async function firstByte(url: string, transcoded: boolean): Promise<number> {
  // the previous ffmpeg has ended and given its slot back (one transcode per user)
  while (transcodesRunning() > 0) await Bun.sleep(2)
  const s = performance.now()
  const res = await fetch(url)
  const reader = res.body!.getReader()
  const { value } = await reader.read()
  const took = performance.now() - s
  await reader.cancel()
  if (!value?.length || res.status !== 200) throw new Error(`stream answered ${res.status}`)
  if ((res.headers.get('accept-ranges') === 'none') !== transcoded) throw new Error(`stream was ${transcoded ? 'not ' : ''}transcoded: ${url}`)
  return took
}

/** ffmpeg by hand: the same arguments the app gives it, time to its first byte on stdout. */
async function byHand(args: string[]): Promise<number> {
  const s = performance.now()
  const proc = Bun.spawn([t.ctx.tools.ffmpeg!.path, '-hide_banner', '-nostdin', '-loglevel', 'error', ...args], { stdout: 'pipe', stderr: 'ignore' })
  const reader = proc.stdout.getReader()
  const { value } = await reader.read()
  const took = performance.now() - s
  proc.kill()
  await proc.exited
  if (!value?.length) throw new Error('ffmpeg wrote nothing')
  return took
}

const mp3Args = (offset: number, rate: number) => [
  ...(offset ? ['-ss', String(offset)] : []),
  ...['-i', song, '-map', '0:a:0', '-vn', '-map_metadata', '-1', '-c:a', 'libmp3lame', '-b:a', `${rate}k`, '-f', 'mp3', 'pipe:1'],
]
const id = `tr-${job!.id}`
console.log(`\n${RUNS} runs each after 3 warm-ups, medians; over HTTP on loopback\n`)
console.log('| stream | app first byte p50 (p95) | ffmpeg by hand p50 | ratio | target |')
console.log('|---|---|---|---|---|')
const streamCases: { name: string; params: Record<string, string>; args: string[] }[] = [
  { name: 'timeOffset=90', params: { timeOffset: '90' }, args: mp3Args(90, 192) },
  { name: 'maxBitRate=128', params: { maxBitRate: '128' }, args: mp3Args(0, 128) },
]
for (const c of values.only === 'podcasts' ? [] : streamCases) {
  // alternate so that both see the same machine load
  const hand = await time(() => byHand(c.args))
  const app = await time(() => firstByte(rest('stream', { id, ...c.params }), true))
  const hand2 = await time(() => byHand(c.args))
  const h = median([...hand, ...hand2])
  const a = median(app)
  console.log(`| ${c.name} | ${a.toFixed(1)} ms (${p95(app).toFixed(1)}) | ${h.toFixed(1)} ms | ${(a / h).toFixed(2)}× | ≤ 300 ms: ${a <= 300 ? 'met' : 'MISSED'} |`)
}
const stored = values.only === 'podcasts' ? [0] : await time(() => firstByte(rest('stream', { id }), false))
console.log(`| the stored file (no change) | ${median(stored).toFixed(1)} ms (${p95(stored).toFixed(1)}) | | | |`)

async function answer(url: string, headers: Record<string, string> = {}): Promise<undefined> {
  const res = await fetch(url, { headers })
  const body = await res.text()
  if (!body.includes('"status":"ok"')) throw new Error(body.slice(0, 300))
  return undefined
}
const sample = JSON.parse(await (await fetch(rest('getPodcasts', { includeEpisodes: 'true' }))).text())['subsonic-response'].podcasts.channel
const episodes = sample.reduce((n: number, ch: { episode?: unknown[] }) => n + (ch.episode?.length ?? 0), 0)
if (sample.length !== CHANNELS || episodes !== CHANNELS * EPISODES) throw new Error(`getPodcasts listed ${sample.length} channels, ${episodes} episodes`)
// the bare SQL: the queries getPodcasts runs, called directly
const cutNow = cutOf(DEFAULT_SPONSORBLOCK)
const bareSql = async () => {
  for (const p of await podcastsOf(db, userId)) await episodesOf(db, userId, cutNow, p.channelId, p.keepLast)
  return undefined
}
const ping = await time(() => answer(rest('ping')))
const bare = await time(bareSql)
const pods = await time(() => answer(rest('getPodcasts', { includeEpisodes: 'true' })))
// the same without compression (fetch asks for gzip by default, as players do)
const plain = await time(() => answer(rest('getPodcasts', { includeEpisodes: 'true' }), { 'accept-encoding': 'identity' }))
const ping2 = await time(() => answer(rest('ping')))
const pm = median([...ping, ...ping2])
const gm = median(pods)
const bytes = (await (await fetch(rest('getPodcasts', { includeEpisodes: 'true' }))).arrayBuffer()).byteLength
console.log(`\n| call | p50 (p95) | its bare SQL p50 | ping p50 | target |`)
console.log('|---|---|---|---|---|')
console.log(
  `| getPodcasts, ${CHANNELS} × ${EPISODES} episodes (${(bytes / 1e6).toFixed(2)} MB of JSON) | ${gm.toFixed(1)} ms (${p95(pods).toFixed(1)}) | ${median(bare).toFixed(1)} ms | ${pm.toFixed(2)} ms | ≤ 30 ms: ${gm <= 30 ? 'met' : 'MISSED'} |`,
)
console.log(`| the same, not compressed (Accept-Encoding: identity) | ${median(plain).toFixed(1)} ms (${p95(plain).toFixed(1)}) | | | |`)
server.stop(true)
await t.close()
process.exit(0)
