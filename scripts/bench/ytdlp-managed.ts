#!/usr/bin/env bun
/**
 * Managed yt-dlp benchmark (not a test): `bun scripts/bench/ytdlp-managed.ts [--runs=7]`
 *
 * (1) Job time: the download step of a link job as the app runs it (the toolbox's managed copy
 *     under DATA_DIR/tools, `withYtdlp` with its lease and cookies look-up, the egress proxy, the
 *     base flags) against the same yt-dlp file started directly with the same argument list,
 *     alternated in back-to-back pairs; prints the ratio of the medians and the median of the
 *     per-pair ratios, managed/direct (target ≤ 1.02). The source is a 3-minute
 *     video behind a page with JSON-LD on 127.0.0.1.
 * (2) Start-up: Toolbox.init() with the managed copy (first start: seeded from PATH and
 *     self-tested; later starts: state read) against YTDLP_UPDATE=off (yt-dlp on PATH).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseEnv } from '../../src/env.ts'
import { egressProxy } from '../../src/lib/egress-proxy.ts'
import { runProcess, toolEnv } from '../../src/lib/process.ts'
import { Cipher } from '../../src/lib/secret.ts'
import { parseAllowList } from '../../src/lib/url-guard.ts'
import { Toolbox } from '../../src/tools/toolbox.ts'
import { downloadArgs, downloadAudio, ytdlpBaseArgs } from '../../src/tools/ytdlp.ts'
import { createTestDatabase } from '../../tests/support/db.ts'
import { makeTone, ffmpeg, startMediaServer } from '../../tests/support/media.ts'

const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 7)
const work = mkdtempSync(join(tmpdir(), 'tunefeed-bench-ytdlp-'))
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const ms = (x: number) => `${x.toFixed(0)} ms`

const database = await createTestDatabase()
const envFor = (dataDir: string, update: 'stable' | 'off') =>
  parseEnv({
    DATA_DIR: dataDir,
    FETCH_ALLOW_HOSTS: '127.0.0.1',
    YTDLP_UPDATE: update,
    // no release server: a check would fail; none runs here (no job queue)
    YTDLP_RELEASE_URL: 'http://127.0.0.1:9/',
    PATH: process.env.PATH ?? '',
    LOG_LEVEL: 'silent',
  })
const toolbox = (dataDir: string, update: 'stable' | 'off') => {
  const env = envFor(dataDir, update)
  return new Toolbox(env, { db: database.db, cipher: new Cipher('b'.repeat(32)), allow: parseAllowList(env.FETCH_ALLOW_HOSTS) })
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now()
  const result = await fn()
  return [performance.now() - started, result]
}

try {
  // (2) start-up cost
  const managedDir = join(work, 'managed')
  const offDir = join(work, 'off')
  mkdirSync(offDir)
  const [seedMs, managed] = await timed(async () => {
    const t = toolbox(managedDir, 'stable')
    await t.init()
    return t
  })
  const warm: number[] = []
  const off: number[] = []
  for (let i = 0; i < runs; i++) {
    warm.push((await timed(() => toolbox(managedDir, 'stable').init()))[0])
    off.push((await timed(() => toolbox(offDir, 'off').init()))[0])
  }
  console.log(`start-up: first start (seed from PATH + self-test) ${ms(seedMs)}; later starts ${ms(median(warm))} managed vs ${ms(median(off))} off (yt-dlp on PATH): +${ms(median(warm) - median(off))}`)

  // the fixed cost the managed path adds to a call: the lease and the cookies look-up, and the
  // setpriv hop of runProcess (measured alone: on a loaded machine the download times are noisy)
  const lease: number[] = []
  const hop: number[] = []
  for (let i = 0; i < 50; i++) {
    lease.push((await timed(() => managed.withYtdlp(async () => {})))[0])
    const [withHop] = await timed(() => runProcess(['/bin/true']))
    const [bare] = await timed(async () => void (await Bun.spawn(['/bin/true']).exited))
    hop.push(withHop - bare)
  }
  console.log(`fixed cost per call (median of 50): lease + cookies look-up ${median(lease).toFixed(2)} ms, setpriv hop ${median(hop).toFixed(2)} ms`)

  // (1) job time
  const media = await startMediaServer()
  const long = join(work, 'long.mp3')
  const video = join(work, 'video.mp4')
  await makeTone(long, 180)
  await ffmpeg(['-f', 'lavfi', '-i', 'color=c=black:s=320x240:d=180', '-i', long, '-shortest', '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', video])
  media.addFile('video.mp4', video)
  const url = `${media.url}/files/video.mp4`
  const path = managed.ytdlp!.path
  const proxy = await egressProxy(parseAllowList('127.0.0.1'))

  const viaApp = async (dir: string) => {
    await managed.withYtdlp((cfg) => downloadAudio(cfg, url, dir, AbortSignal.timeout(120_000), () => {}), { url })
  }
  const direct = async (dir: string) => {
    // the same file and argument list, spawned by hand
    const cfg = { path, version: managed.ytdlp!.version, allow: parseAllowList('127.0.0.1'), jsRuntime: managed.jsRuntime(), maxFilesize: 209715200, cookies: null, tmpDir: dir }
    const args = [path, ...ytdlpBaseArgs(cfg, proxy.url, null), ...downloadArgs(url, dir)]
    const proc = Bun.spawn(args, { stdout: 'pipe', stderr: 'pipe', env: toolEnv(cfg.jsRuntime?.env) })
    await new Response(proc.stdout).text()
    if ((await proc.exited) !== 0) throw new Error(`direct yt-dlp failed: ${await new Response(proc.stderr).text()}`)
  }
  const a: number[] = []
  const b: number[] = []
  // one warm-up of each, then alternated
  for (let i = -1; i < runs; i++) {
    for (const [fn, into] of (i % 2 ? [[viaApp, a], [direct, b]] : [[direct, b], [viaApp, a]]) as [typeof direct, number[]][]) {
      const dir = mkdtempSync(join(work, 'run-'))
      const [took] = await timed(() => fn(dir))
      rmSync(dir, { recursive: true, force: true })
      if (i >= 0) into.push(took)
    }
  }
  // pairs run back to back, so the median of the per-pair ratios is steadier on a busy machine than a ratio of medians
  const pairRatio = median(a.map((x, i) => x / b[i]!))
  console.log(
    `job download step (${runs} pairs): managed ${ms(median(a))}, direct ${ms(median(b))} (medians); ratio of medians ${(median(a) / median(b)).toFixed(3)}, median pair ratio ${pairRatio.toFixed(3)} (target ≤ 1.02)`,
  )
  await media.stop()
} finally {
  await database.close()
  rmSync(work, { recursive: true, force: true })
  process.exit(0)
}
