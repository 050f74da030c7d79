#!/usr/bin/env bun
/**
 * Podcast benchmark (a benchmark, not a test; issue 27's closing note). In one run:
 *
 *  1. The feed's answer time with 100 episodes over HTTP on loopback, as a podcast app
 *     fetches it (no cookie): cold (the whole RSS body) and revalidated (`If-None-Match`
 *     → 304, answered from the feed's version without building it: docs/decisions/290),
 *     and an episode's chapters and transcript (made when it was cut: docs/decisions/291),
 *     each as a ratio of medians against `GET /api/health` measured in the same run (the
 *     app's most trivial route).
 *  2. The audio cache's eviction against AUDIO_CACHE_MB: listen-mode audio of 1 MB each
 *     fetched one after another far beyond the limit (enforceAudioCache after each, as the
 *     fetch job runs it), with a podcast of 100 episodes in a feed; reports the bytes on disk
 *     against the limit after every fetch (largest and last) and whether every episode in the
 *     feed stayed.
 *
 *   bun scripts/bench/podcasts.ts [--runs 200] [--cache-mb 64] [--fetches 200]
 *   TEST_DATABASE_URL=postgres://... bun scripts/bench/podcasts.ts     # on PostgreSQL
 */
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import { users } from '../../src/auth/tables.ts'
import { setLogLevel } from '../../src/lib/logger.ts'
import { audioDir, enforceAudioCache } from '../../src/youtube/listen/audio.ts'
import { cutOf, episodeDir, episodeFile } from '../../src/youtube/listen/episode-queries.ts'
import { DEFAULT_SPONSORBLOCK } from '../../src/youtube/listen/schema.ts'
import { createTestApp, serveTestApp } from '../../tests/support/app.ts'

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '200' }, 'cache-mb': { type: 'string', default: '64' }, fetches: { type: 'string', default: '200' } },
})
const RUNS = Number(values.runs)
const CACHE_MB = Number(values['cache-mb'])
const FETCHES = Number(values.fetches)
const EPISODES = 100
const EPISODE_BYTES = 200_000
const AUDIO_BYTES = 1024 * 1024
setLogLevel('warn')

const t = await createTestApp({ env: { AUDIO_CACHE_MB: String(CACHE_MB) } })
const db = t.ctx.db
const server = serveTestApp(t)
const base = server.url.href.replace(/\/$/, '')
const kind = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'

// --- seed: a followed channel with 100 ready episodes (and 200 more videos), its podcast on ---
const [user] = await db.insert(users).values({ email: 'bench@example.com', passwordHash: null, verifiedAt: new Date() }).returning({ id: users.id })
const userId = user!.id
const channelId = 'UCbenchbenchbenchbench01'
const cut = cutOf(DEFAULT_SPONSORBLOCK)
await db.execute(sql`insert into youtube_channels (id, title, thumbnail) values (${channelId}, 'Bench Channel', '')`)
await db.execute(sql`insert into youtube_subscriptions (user_id, channel_id, source) values (${userId}, ${channelId}, 'manual')`)
await db.execute(sql`insert into youtube_videos (id, channel_id, title, description, published_at, category_id, duration, kind)
  select 'bench' || lpad(i::text, 6, '0'), ${channelId}, 'Episode ' || i || ' & more <news>', repeat('A description line. ', 40),
    now() - make_interval(hours => i), 22, 1800 + i, 'video'
  from generate_series(1, ${EPISODES + 200}) as i`)
await db.execute(sql`insert into youtube_podcasts (user_id, channel_id, enabled, keep_last) values (${userId}, ${channelId}, true, ${EPISODES})`)
const videoIds = Array.from({ length: EPISODES }, (_, i) => `bench${String(i + 1).padStart(6, '0')}`)
await mkdir(episodeDir(t.ctx), { recursive: true })
const episodeBytes = new Uint8Array(EPISODE_BYTES)
for (const id of videoIds) await writeFile(join(episodeDir(t.ctx), episodeFile(id, cut)), episodeBytes)
await db.execute(sql`insert into youtube_podcast_episodes (video_id, cut, state, file, size, duration, played_at)
  select v.id, ${cut}, 'ready', v.id || '.' || ${episodeFile('x', cut).split('.')[1]!} || '.mp3', ${EPISODE_BYTES}, v.duration - 30, now() - interval '1 day'
  from youtube_videos v where v.id between ${videoIds[0]!} and ${videoIds.at(-1)!}`)
// the newest episode has chapters (20) and a transcript (an hour of cues, about 90 KB), as the episode job makes them
const chaptersJson = JSON.stringify({ version: '1.2.0', chapters: Array.from({ length: 20 }, (_, i) => ({ startTime: i * 90, title: `Part ${i + 1}` })) })
const transcript = `WEBVTT\n\n${Array.from({ length: 1200 }, (_, i) => `${new Date(i * 3000).toISOString().slice(11, 23)} --> ${new Date(i * 3000 + 2900).toISOString().slice(11, 23)}\nLine ${i} of what was said.\n`).join('\n')}`
await db.execute(sql`update youtube_podcast_episodes set chapter_count = 20, transcript_lang = 'en' where video_id = ${videoIds[0]!}`)
await db.execute(sql`insert into youtube_podcast_episode_texts (video_id, cut, chapters, transcript) values (${videoIds[0]!}, ${cut}, ${chaptersJson}, ${transcript})`)
await db.execute(sql`analyze`)
const list = await (await t.app.request('/api/youtube/podcasts', { headers: { cookie: await sessionCookie() } })).json()
const feedPath = new URL((list as { feeds: { url: string }[] }).feeds[0]!.url).pathname

async function sessionCookie() {
  const { createSession, SESSION_COOKIE } = await import('../../src/auth/session.ts')
  const { token } = await createSession(db, userId)
  return `${SESSION_COOKIE}=${token}`
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!

async function time(path: string, headers: Record<string, string> = {}, expectStatus = 200): Promise<number[]> {
  const samples: number[] = []
  for (let i = 0; i < RUNS + 10; i++) {
    const started = performance.now()
    const res = await fetch(`${base}${path}`, { headers })
    await res.arrayBuffer()
    if (res.status !== expectStatus) throw new Error(`${path}: ${res.status}`)
    if (i >= 10) samples.push(performance.now() - started)
  }
  return samples
}

// --- 1. the feed's answer time ---
const first = await fetch(`${base}${feedPath}`)
const body = await first.text()
const etag = first.headers.get('etag')!
const items = body.split('<item>').length - 1
if (items !== EPISODES) throw new Error(`the feed has ${items} items, not ${EPISODES}`)
// interleaved rounds, so load on the machine falls on all three alike
const health: number[] = []
const cold: number[] = []
const revalidated: number[] = []
const chapters: number[] = []
const transcripts: number[] = []
const textsRoot = feedPath.replace(/\/channel\/[^/]+$/, '')
for (let round = 0; round < 4; round++) {
  health.push(...(await time('/api/health')).slice(0, RUNS / 4))
  cold.push(...(await time(feedPath)).slice(0, RUNS / 4))
  revalidated.push(...(await time(feedPath, { 'if-none-match': etag }, 304)).slice(0, RUNS / 4))
  chapters.push(...(await time(`${textsRoot}/chapters/${videoIds[0]}.json`)).slice(0, RUNS / 4))
  transcripts.push(...(await time(`${textsRoot}/transcript/${videoIds[0]}.vtt`)).slice(0, RUNS / 4))
}
const ms = (x: number) => `${x.toFixed(2)} ms`
console.log(`\nfeed with ${EPISODES} episodes (${(body.length / 1024).toFixed(0)} KiB of RSS), ${kind}, ${health.length} requests each, HTTP on loopback:`)
console.log(`  GET /api/health (baseline)   median ${ms(median(health))}  p95 ${ms(p95(health))}`)
console.log(`  feed, cold (200)             median ${ms(median(cold))}  p95 ${ms(p95(cold))}  ratio ${(median(cold) / median(health)).toFixed(1)}×`)
console.log(`  feed, If-None-Match (304)    median ${ms(median(revalidated))}  p95 ${ms(p95(revalidated))}  ratio ${(median(revalidated) / median(health)).toFixed(1)}×`)
console.log(`  chapters JSON (20)           median ${ms(median(chapters))}  p95 ${ms(p95(chapters))}  ratio ${(median(chapters) / median(health)).toFixed(1)}×`)
console.log(`  transcript (${(transcript.length / 1024).toFixed(0)} KiB WebVTT)   median ${ms(median(transcripts))}  p95 ${ms(p95(transcripts))}  ratio ${(median(transcripts) / median(health)).toFixed(1)}×`)

// --- 2. the audio cache against AUDIO_CACHE_MB ---
async function bytesOnDisk(): Promise<number> {
  let total = 0
  for (const f of await readdir(audioDir(t.ctx), { recursive: true, withFileTypes: true })) {
    if (f.isFile() && f.name.endsWith('.mp3')) total += (await stat(join(f.parentPath, f.name))).size
  }
  return total
}
const limit = CACHE_MB * 1024 * 1024
const audioBytes = new Uint8Array(AUDIO_BYTES)
let largest = 0
const evictMs: number[] = []
for (let i = 0; i < FETCHES; i++) {
  // one more video's listen-mode audio, as the fetch job stores it, then the cache's rule
  const id = `bench${String(EPISODES + 1 + (i % 200)).padStart(6, '0')}`
  await writeFile(join(audioDir(t.ctx), `${id}.mp3`), audioBytes)
  await db.execute(sql`insert into youtube_audio (video_id, state, file, size, content_type, played_at) values (${id}, 'ready', ${`${id}.mp3`}, ${AUDIO_BYTES}, 'audio/mpeg', now())
    on conflict (video_id) do update set state = 'ready', file = excluded.file, size = excluded.size, played_at = now()`)
  const started = performance.now()
  await enforceAudioCache(t.ctx, id)
  evictMs.push(performance.now() - started)
  largest = Math.max(largest, await bytesOnDisk())
}
const last = await bytesOnDisk()
const kept = (await readdir(episodeDir(t.ctx))).filter((f) => f.endsWith('.mp3')).length
const feedAfter = await (await fetch(`${base}${feedPath}`)).text()
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`
console.log(`\naudio cache, AUDIO_CACHE_MB=${CACHE_MB}: ${FETCHES} fetches of ${mb(AUDIO_BYTES)} (${mb(FETCHES * AUDIO_BYTES)} in all) beside ${EPISODES} feed episodes (${mb(EPISODES * EPISODE_BYTES)}):`)
console.log(`  bytes on disk: largest ${mb(largest)} (${((largest / limit) * 100).toFixed(1)}% of the limit), at the end ${mb(last)} (${((last / limit) * 100).toFixed(1)}%)`)
console.log(`  feed episodes kept: ${kept} of ${EPISODES} files; the feed still lists ${feedAfter.split('<item>').length - 1}`)
console.log(`  enforceAudioCache per fetch: median ${ms(median(evictMs))}  p95 ${ms(p95(evictMs))}`)

server.stop(true)
await t.close()
