#!/usr/bin/env bun
/**
 * YouTube pacing benchmark (not a test): `bun scripts/bench/pacing.ts [--sleep=8] [--jobs=20]`
 *
 * A playlist's worth of YouTube link jobs (20 by default) through the whole app (createTestApp:
 * real queue with JOB_CONCURRENCY=2, the app-wide gate in the database, the real music pipeline:
 * Debian's yt-dlp downloading a 20-second tone from 127.0.0.1, ffmpeg converting it), the watch
 * links mapped to loopback by the stand-in yt-dlp. Run twice in the same process: first with
 * YTDLP_SLEEP_SECONDS=0 (the baseline), then with --sleep. Prints the wall time of each, the floor
 * the gate sets (sleep × (jobs − 1)), how far the paced run is above that floor, and the spacing of
 * the recorded yt-dlp starts. Run it as `LOG_LEVEL=silent bun scripts/bench/pacing.ts` for the
 * summary alone. Results: docs/decisions/149-pacing-cost.md.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestApp } from '../../tests/support/app.ts'
import { startFakeYtdlp } from '../../tests/support/fake-ytdlp.ts'
import { makeTone, startMediaServer } from '../../tests/support/media.ts'
import { listJobs, musicForm, postForm } from '../../tests/support/music.ts'
import { quickUser } from '../../tests/support/youtube.ts'

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback)
const sleep = arg('sleep', 8)
const jobs = arg('jobs', 20)
const work = mkdtempSync(join(tmpdir(), 'tunefeed-bench-pacing-'))
const media = await startMediaServer()
await makeTone(join(work, 'tone.mp3'), 20)
media.addFile('tone.mp3', join(work, 'tone.mp3'))
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`

async function run(label: string, sleepSeconds: number) {
  const watch = (i: number) => `https://www.youtube.com/watch?v=bench${label}${String(i).padStart(3, '0')}`
  const urls = Object.fromEntries(Array.from({ length: jobs }, (_, i) => [watch(i), `${media.url}/files/tone.mp3`]))
  const fake = startFakeYtdlp({ urls })
  const t = await createTestApp({
    env: { FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com', YTDLP_PATH: fake.path, JOB_CONCURRENCY: '2', YTDLP_SLEEP_SECONDS: String(sleepSeconds) },
  })
  try {
    const { client } = await quickUser(t)
    const started = performance.now()
    for (let i = 0; i < jobs; i++) {
      const res = await postForm(client, '/api/music/jobs/create', musicForm({ video_url: watch(i), title: `Track ${i + 1}`, artist: 'Band', album: 'Playlist' }))
      if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`)
    }
    for (;;) {
      const list = (await listJobs(client, 1, 50)).jobs
      if (list.some((j) => j.failed)) throw new Error(`a job failed: ${JSON.stringify(list.find((j) => j.failed))}`)
      if (list.length === jobs && list.every((j) => j.completed)) break
      await Bun.sleep(200)
    }
    const wall = performance.now() - started
    const starts = fake
      .starts()
      .filter((c) => !c.args.includes('--version'))
      .map((c) => c.at)
      .sort((a, b) => a - b)
    const gaps = starts.slice(1).map((at, i) => at - starts[i]!)
    return { wall, minGap: Math.min(...gaps), span: starts.at(-1)! - starts[0]! }
  } finally {
    await t.close()
    fake.stop()
  }
}

try {
  const base = await run('free', 0)
  const paced = await run('paced', sleep)
  const floor = sleep * 1000 * (jobs - 1)
  console.log(`${jobs} YouTube link jobs, JOB_CONCURRENCY=2, 20-second tone each`)
  console.log(`YTDLP_SLEEP_SECONDS=0:        wall ${s(base.wall)}  (yt-dlp starts span ${s(base.span)}, closest two ${s(base.minGap)})`)
  console.log(`YTDLP_SLEEP_SECONDS=${sleep}:        wall ${s(paced.wall)}  (yt-dlp starts span ${s(paced.span)}, closest two ${s(paced.minGap)})`)
  console.log(`floor ${sleep} s × ${jobs - 1} = ${s(floor)}; paced wall / floor = ${(paced.wall / floor).toFixed(3)}; above the floor: ${s(paced.wall - floor)}`)
  console.log(`paced / unpaced wall = ${(paced.wall / base.wall).toFixed(2)}`)
} finally {
  await media.stop()
  rmSync(work, { recursive: true, force: true })
}
