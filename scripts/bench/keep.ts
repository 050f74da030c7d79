#!/usr/bin/env bun
/**
 * Keeping videos benchmark (a benchmark, not a test): `bun scripts/bench/keep.ts [--videos=20] [--kept=5000] [--runs=50]`
 *
 * 1. Keeping a channel's newest `--videos` videos (Keep on, keepLast = N, 360p): the app's jobs run
 *    in process (as tests/support/youtube.ts runs them) through the YouTube gate, with the stand-in
 *    yt-dlp mapping each watch URL to a loopback page of real MP4s (tests/support/kept-media.ts) that
 *    Debian's yt-dlp then downloads, merges and tags with ffmpeg. The baseline: the very same yt-dlp
 *    command lines (recorded by the stand-in, so the same flags, proxy and pacing) run by hand one
 *    after another. Prints both wall times and the ratio (goal ≤ 1.05).
 * 2. GET /api/youtube/kept of a user keeping `--kept` videos (synthetic rows): p50 and p95 in ms (goal p50 ≤ 30).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startFakeYtdlp } from '../../tests/support/fake-ytdlp.ts'
import { startKeptMedia } from '../../tests/support/kept-media.ts'
import { createYoutubeTestApp, quickUser, startTestFake } from '../../tests/support/youtube.ts'
import { watchUrl } from '../../src/youtube/listen/audio.ts'
import { youtubeVideos } from '../../src/youtube/tables.ts'
import { youtubeKeeps, youtubeKeptFiles } from '../../src/youtube/keep/tables.ts'

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback)
const VIDEOS = arg('videos', 20)
const KEPT = arg('kept', 5000)
const RUNS = arg('runs', 50)
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!

const keepDir = mkdtempSync(join(tmpdir(), 'tunefeed-bench-keep-'))
const [fake, media] = await Promise.all([startTestFake(), startKeptMedia([360])])
const uploads = fake.channel('@lofi-garden').uploads
const ytdlp = startFakeYtdlp({ urls: Object.fromEntries(uploads.map((id) => [watchUrl(id), `${media.url}/v/${id}.html`])) })
const t = await createYoutubeTestApp(fake, { YTDLP_PATH: ytdlp.path, FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com', KEEP_DIR: keepDir, KEEP_MIN_FREE_MB: '0' })
try {
  const user = await quickUser(t)
  await user.client.put('/api/youtube/subscriptions/user?channel_id=@lofi-garden')
  await t.jobs.drain()
  const channelId = fake.channel('@lofi-garden').id

  // 1. the app keeping N videos
  const before = ytdlp.calls().length
  const appStart = performance.now()
  await user.client.put(`/api/youtube/channels/${channelId}/keep`, { enabled: true, keepLast: VIDEOS, maxHeight: 360 })
  await t.jobs.drain()
  const appMs = performance.now() - appStart
  const commands = ytdlp.calls().slice(before).filter((a) => a.includes('--embed-thumbnail'))
  // the same command lines by hand, one after another (the app's pacing is in them: --sleep-requests)
  const handStart = performance.now()
  for (const args of commands) {
    const p = Bun.spawn([ytdlp.path, ...args], { stdout: 'ignore', stderr: 'ignore' })
    await p.exited
  }
  const handMs = performance.now() - handStart
  console.log(`keep ${commands.length} videos: app ${Math.round(appMs)} ms, the same yt-dlp commands by hand ${Math.round(handMs)} ms, ratio ${(appMs / handMs).toFixed(3)}`)

  // 2. GET /kept with KEPT kept videos
  const rows = Array.from({ length: KEPT }, (_, i) => ({
    id: `k${String(i).padStart(10, '0')}`,
    channelId,
    title: `Kept video ${i}`,
    publishedAt: new Date(Date.UTC(2020, 0, 1) + i * 3600_000),
    categoryId: 10,
    duration: 60,
  }))
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500)
    await t.ctx.db.insert(youtubeVideos).values(chunk).onConflictDoNothing()
    await t.ctx.db.insert(youtubeKeptFiles).values(chunk.map((r) => ({ videoId: r.id, channelId, state: 'ready', wantHeight: 360, height: 360, file: `x/${r.id}.mp4`, contentType: 'video/mp4', size: 1000 }))).onConflictDoNothing()
    await t.ctx.db.insert(youtubeKeeps).values(chunk.map((r) => ({ userId: user.id, videoId: r.id, maxHeight: 360 }))).onConflictDoNothing()
  }
  const times: number[] = []
  for (let i = 0; i < RUNS + 5; i++) {
    const s = performance.now()
    const res = await user.client.get(`/api/youtube/kept?page=${1 + (i % 20)}`)
    await res.arrayBuffer()
    if (i >= 5) times.push(performance.now() - s)
  }
  console.log(`GET /api/youtube/kept with ${KEPT} kept videos (48 a page): p50 ${pct(times, 0.5).toFixed(1)} ms, p95 ${pct(times, 0.95).toFixed(1)} ms (${RUNS} runs)`)
} finally {
  await t.close()
  await fake.stop()
  await media.stop()
  ytdlp.stop()
  rmSync(keepDir, { recursive: true, force: true })
}
