#!/usr/bin/env bun
/**
 * Music pipeline benchmark (not a test): `bun scripts/bench/music.ts [--runs=3]`
 *
 * On one generated 3-minute source (a page with JSON-LD and a video, served
 * on 127.0.0.1):
 *  (a) a URL job end to end through the API of a real server process
 *      (POST /jobs/create → COMPLETED on the WebSocket), and
 *  (b) the same yt-dlp and ffmpeg commands run by hand: yt-dlp as the job
 *      calls it, then the job's own conversion (`convertToMp3`: its ffmpeg
 *      command with the loudness branch and the worker measuring it, as in (c)),
 * in rotating order, median of each; prints a/b (target ≤ 1.10), and a
 * against the plain cut (that command without the loudness branch) as (c)
 * does. Then the server's resident memory (from /proc) during a 200 MB upload
 * and during 10 concurrent jobs, against its idle baseline.
 *
 * Then (`--part=tracks` runs only this, `--part=loudness` only (d); `--part=pipeline` only the above):
 *  (c) a chapter split of a 40-minute source with 10 chapters through the API
 *      (split_chapters=true → 10 tagged MP3s with ReplayGain and a ZIP)
 *      against yt-dlp plus the same 10 ffmpeg cuts by hand (target ≤ 1.15).
 *      "The same cuts" are the job's own conversions (`convertToMp3` of
 *      src/tools/ffmpeg.ts: input seeking, MP3 VBR, the loudness branch and
 *      the worker thread measuring it, counted in this process's CPU),
 *      run one after the other as the job runs them; so the ratio is what the
 *      API adds around the tools (server, queue, progress, tags, ZIP, the
 *      egress proxy yt-dlp downloads through), and ReplayGain is counted once,
 *      in (d). The same cuts without the loudness branch are printed too
 *      (docs/decisions/117-chapter-split-benchmark.md).
 *      Wall and CPU (user+sys of the server and its children, or of the
 *      commands by hand), medians and the per-run range; the order rotates.
 *      Each tool run by hand gets its own session (`detached`), as the
 *      server's tools do (src/lib/process.ts): with Linux's autogroup
 *      scheduling the CPU is shared by session, so both sides are scheduled
 *      alike on a busy machine;
 *  (d) ReplayGain's cost: the job's conversion with and without the
 *      measurement (the same ffmpeg command otherwise; with it, the measuring
 *      branch's second output, the FIFO and the worker's CPU count) on the
 *      3-minute source, alternating (21 pairs), the difference against a whole job
 *      through the API (target ≤ 5 %; the options measured are in
 *      docs/decisions/115-replaygain-measurement-cost.md and
 *      127-replaygain-in-the-app.md).
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ffmpeg, makeChaptered, startMediaServer } from '../../tests/support/media.ts'
import { signUpOverHttp } from '../../tests/support/music.ts'
import { startServerProcess, type ServerProcess } from '../../tests/support/server-process.ts'
import { convertToMp3, type ConvertRange } from '../../src/tools/ffmpeg.ts'

const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 3)
const part = process.argv.find((a) => a.startsWith('--part='))?.slice(7) ?? 'all'
const YTDLP = process.env.YTDLP_PATH || '/usr/bin/yt-dlp'
const FFMPEG = process.env.FFMPEG_PATH || '/usr/bin/ffmpeg'
const work = mkdtempSync(join(tmpdir(), 'tunefeed-bench-'))
const dataDir = join(work, 'data')
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')

/** CPU seconds of a process and its reaped children (yt-dlp, ffmpeg), from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // utime stime cutime cstime are fields 14-17 (1-based), i.e. 11-14 after the command
  return fields.slice(11, 15).reduce((sum, v) => sum + Number(v), 0) / 100
}

function rss(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
  return Number(kb) * 1024
}

/** Polls the process's RSS every 10 ms while `work` runs; returns the peak. */
async function peakRss<T>(pid: number, run: () => Promise<T>): Promise<{ peak: number; result: T }> {
  let peak = rss(pid)
  const timer = setInterval(() => (peak = Math.max(peak, rss(pid))), 10)
  try {
    const result = await run()
    peak = Math.max(peak, rss(pid))
    return { peak, result }
  } finally {
    clearInterval(timer)
  }
}

/** Resolves job ids as COMPLETED arrives on the user's socket. */
async function socket(server: ServerProcess, cookie: string) {
  const waiters = new Map<string, () => void>()
  const done = new Set<string>()
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api/music/jobs/listen`, { headers: { cookie } } as unknown as string[])
  ws.onmessage = (e) => {
    const m = JSON.parse(String(e.data)) as { id?: string; status: string }
    if (m.status === 'COMPLETED' && m.id) {
      done.add(m.id)
      waiters.get(m.id)?.()
    }
  }
  await new Promise((resolve, reject) => ((ws.onopen = resolve), (ws.onerror = reject)))
  return {
    completed: (id: string) => (done.has(id) ? Promise.resolve() : new Promise<void>((resolve) => waiters.set(id, resolve))),
    close: () => ws.close(),
  }
}

async function createJob(server: ServerProcess, cookie: string, fields: Record<string, string>, file?: string) {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  if (file) form.append('file', Bun.file(file), file.split('/').pop())
  const res = await fetch(`${server.url}/api/music/jobs/create`, { method: 'POST', body: form, headers: { cookie } })
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { id: string }).id
}

/** Wall and CPU time of yt-dlp + the job's conversion command run by hand (or that command without the loudness branch). */
async function byHand(pageUrl: string, measure: boolean): Promise<{ wall: number; cpu: number }> {
  const dir = mkdtempSync(join(work, 'hand-'))
  const t0 = performance.now()
  const { source, cpu: dlCpu } = await downloadByHand(pageUrl, dir)
  const cpu = dlCpu + (await convertByHand(source, `${dir}/out.mp3`, {}, measure))
  const wall = performance.now() - t0
  rmSync(dir, { recursive: true, force: true })
  return { wall, cpu }
}

/**
 * The job's conversion (`convertToMp3` of src/tools/ffmpeg.ts: its ffmpeg
 * command and, with `measure`, the loudness measurement: the FIFO and the
 * worker thread reading it), or the same without the measuring branch, run
 * here in this process; its CPU seconds: this process's own (the worker is
 * one of its threads) plus its reaped children's (ffmpeg, mkfifo).
 */
async function convertByHand(input: string, output: string, range: ConvertRange, measure: boolean): Promise<number> {
  const cpu0 = cpuSeconds(process.pid)
  const loudness = await convertToMp3(tool, input, output, AbortSignal.timeout(600_000), () => {}, range, measure)
  if (measure && !loudness) throw new Error(`no loudness measured for ${input}`)
  return cpuSeconds(process.pid) - cpu0
}
const tool = { path: FFMPEG, source: 'config' as const, version: null }

/** yt-dlp by hand, as the job calls it (best audio into `dir`): the file and yt-dlp's CPU seconds. */
async function downloadByHand(url: string, dir: string): Promise<{ source: string; cpu: number }> {
  const dl = Bun.spawn(
    [YTDLP, '--ignore-config', '--no-playlist', '-f', 'bestaudio/best', '-o', `${dir}/source.%(ext)s`, '--print', 'after_move:filepath', '--no-simulate', url],
    { stdout: 'pipe', stderr: 'ignore', detached: true },
  )
  const source = (await new Response(dl.stdout).text()).trim()
  if ((await dl.exited) !== 0) throw new Error('yt-dlp failed')
  return { source, cpu: Number(dl.resourceUsage()!.cpuTime.total) / 1e6 }
}

console.log('generating sources…')
const media = await startMediaServer()
const video = join(work, 'video.mp4')
await ffmpeg([
  '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=15:duration=180',
  '-f', 'lavfi', '-i', 'sine=frequency=440:duration=180',
  '-f', 'lavfi', '-i', 'anoisesrc=d=180:a=0.05',
  '-filter_complex', '[1:a][2:a]amix=inputs=2,aformat=channel_layouts=stereo[a]',
  '-map', '0:v', '-map', '[a]', '-c:v', 'mpeg4', '-q:v', '8', '-c:a', 'aac', '-b:a', '192k', '-shortest', video,
])
// a page with JSON-LD naming the 3-minute video (served at /files/video.mp4)
media.addFile('video.mp4', video)
const html = `<!doctype html><html><head><script type="application/ld+json">${JSON.stringify({
  '@context': 'https://schema.org',
  '@type': 'VideoObject',
  name: 'Bench',
  contentUrl: `${media.url}/files/video.mp4`,
  uploadDate: '2024-01-01',
  author: { '@type': 'Person', name: 'Bench Uploader' },
})}</script></head><body></body></html>`
const pageFile = join(work, 'page.html')
writeFileSync(pageFile, html)
const pageServer = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(Bun.file(pageFile), { headers: { 'content-type': 'text/html' } }) })
const benchPage = `http://127.0.0.1:${pageServer.port}/bench-page.html`

console.log(`source: ${mb(statSync(video).size)} video, 3:00`)
const server = await startServerProcess({ DATA_DIR: dataDir, FETCH_ALLOW_HOSTS: '127.0.0.1' }, 120_000)
const cookie = await signUpOverHttp(server.url, dataDir)
const events = await socket(server, cookie)

// warm-up: first yt-dlp run pays Python's imports from a cold cache
console.log(`load average before: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`)
// what the server spends doing nothing (timers, queue polling) is part of (a)'s CPU: show it
const idleCpu0 = cpuSeconds(server.proc.pid)
await Bun.sleep(3000)
console.log(`server CPU while idle: ${((cpuSeconds(server.proc.pid) - idleCpu0) / 3).toFixed(3)} s per s`)
await byHand(benchPage, true)
const apiJob = { wall: [] as number[], cpu: [] as number[] }
if (part !== 'tracks' && part !== 'loudness') {
  const a: { wall: number; cpu: number }[] = []
  const b: { wall: number; cpu: number }[] = []
  const plainCut: { wall: number; cpu: number }[] = []
  // (a)'s CPU is everything the server process and its children spent meanwhile
  const throughApi = async (i: number) => {
    const cpu0 = cpuSeconds(server.proc.pid)
    const t0 = performance.now()
    const id = await createJob(server, cookie, { video_url: benchPage, title: `Bench ${i}`, artist: 'Bench', album: 'Bench' })
    await events.completed(id)
    const wall = performance.now() - t0
    await Bun.sleep(50) // let the server reap its children so their CPU is counted
    return { wall, cpu: cpuSeconds(server.proc.pid) - cpu0 }
}
for (let i = 0; i < runs; i++) {
  // rotate the order so no side always runs on a warmer machine
  const steps = [async () => a.push(await throughApi(i)), async () => b.push(await byHand(benchPage, true)), async () => plainCut.push(await byHand(benchPage, false))]
  for (let k = 0; k < steps.length; k++) await steps[(i + k) % steps.length]!()
  const last = (x: typeof a) => `${(x.at(-1)!.wall / 1000).toFixed(2)} s (cpu ${x.at(-1)!.cpu.toFixed(2)} s)`
  console.log(`run ${i + 1}: api ${last(a)}, by hand ${last(b)}, by hand without the loudness branch ${last(plainCut)}`)
}
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`
const wall = (x: typeof a) => x.map((r) => r.wall)
const cpu = (x: typeof a) => x.map((r) => r.cpu)
console.log(`\n(a) through the API: median ${secs(median(wall(a)))}, best ${secs(Math.min(...wall(a)))}, median CPU ${median(cpu(a)).toFixed(2)} s`)
console.log(`(b) yt-dlp + the job's ffmpeg command by hand: median ${secs(median(wall(b)))}, best ${secs(Math.min(...wall(b)))}, median CPU ${median(cpu(b)).toFixed(2)} s`)
console.log(
  `a/b = ${(median(wall(a)) / median(wall(b))).toFixed(3)} wall (medians), ${(Math.min(...wall(a)) / Math.min(...wall(b))).toFixed(3)} wall (best runs), ` +
    `${(median(cpu(a)) / median(cpu(b))).toFixed(3)} CPU (medians); target ≤ 1.10`,
)
console.log(
  `    against the plain cut (without the loudness branch): ${(median(wall(a)) / median(wall(plainCut))).toFixed(3)} wall, ${(median(cpu(a)) / median(cpu(plainCut))).toFixed(3)} CPU (medians)`,
)
console.log(`load average during the run: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`)
apiJob.wall.push(...wall(a))
apiJob.cpu.push(...cpu(a))

// memory: a 200 MB upload, streamed to disk
const pid = server.proc.pid
const big = join(work, 'big.wav')
const seconds = Math.floor((199 * 1024 * 1024 - 44) / (44100 * 2 * 2))
await ffmpeg(['-f', 'lavfi', '-i', `sine=frequency=220:duration=${seconds}`, '-ac', '2', '-c:a', 'pcm_s16le', big])
await Bun.sleep(500)
Bun.gc(true)
const idle = rss(pid)
const upload = await peakRss(pid, () => createJob(server, cookie, { title: 'Big', artist: 'Bench', album: 'Bench' }, big))
console.log(`\nserver RSS idle ${mb(idle)}; during a ${mb(statSync(big).size)} upload peak ${mb(upload.peak)} (+${mb(upload.peak - idle)})`)
await events.completed(upload.result)

// memory: 10 concurrent URL jobs
const before = rss(pid)
const t0 = performance.now()
const concurrent = await peakRss(pid, async () => {
  const ids = await Promise.all(
    Array.from({ length: 10 }, (_, i) => createJob(server, cookie, { video_url: benchPage, title: `Concurrent ${i}`, artist: 'Bench', album: 'Bench' })),
  )
  await Promise.all(ids.map((id) => events.completed(id)))
})
console.log(
  `10 concurrent jobs: all done in ${((performance.now() - t0) / 1000).toFixed(1)} s; server RSS before ${mb(before)}, peak ${mb(concurrent.peak)} (+${mb(concurrent.peak - before)})`,
)
}

if (part !== 'pipeline' && part !== 'loudness') await benchTracks()
if (part !== 'pipeline') await benchLoudness()

events.close()
await server.stop('SIGTERM')
await media.stop()
pageServer.stop(true)
rmSync(work, { recursive: true, force: true })

/** (c) chapter split through the API vs by hand. */
async function benchTracks() {
  const CHAPTERS = 10
  const MINUTES = 40
  const album = join(work, 'album.m4a')
  const chapters = Array.from({ length: CHAPTERS }, (_, i) => ({
    title: `Part ${i + 1}`,
    start: (i * MINUTES * 60) / CHAPTERS,
    end: ((i + 1) * MINUTES * 60) / CHAPTERS,
  }))
  console.log(`\ngenerating a ${MINUTES}-minute source with ${CHAPTERS} chapters…`)
  await makeChaptered(album, chapters)
  media.addFile('album.m4a', album)
  const albumUrl = `${media.url}/files/album.m4a`

  /** yt-dlp, then each chapter cut by the job's ffmpeg command (or that command without the loudness branch). */
  const cutsByHand = async (measure: boolean) => {
    const dir = mkdtempSync(join(work, 'cuts-'))
    const t0 = performance.now()
    const downloaded = await downloadByHand(albumUrl, dir)
    let cpu = downloaded.cpu
    for (const [i, c] of chapters.entries()) cpu += await convertByHand(downloaded.source, `${dir}/${i + 1}.mp3`, c, measure)
    const wall = performance.now() - t0
    rmSync(dir, { recursive: true, force: true })
    return { wall, cpu }
  }
  const splitThroughApi = async (i: number) => {
    const cpu0 = cpuSeconds(server.proc.pid)
    const t0 = performance.now()
    const id = await createJob(server, cookie, { video_url: albumUrl, title: `Album ${i}`, artist: 'Bench', album: `Album ${i}`, split_chapters: 'true' })
    await events.completed(id)
    const wall = performance.now() - t0
    await Bun.sleep(50)
    const res = await fetch(`${server.url}/api/music/jobs/list?per_page=1`, { headers: { cookie } })
    const job = ((await res.json()) as { jobs: { id: string; tracks: unknown[]; failed: string | null }[] }).jobs[0]!
    if (job.id !== id || job.failed || job.tracks.length !== CHAPTERS) throw new Error(`split job did not give ${CHAPTERS} tracks`)
    return { wall, cpu: cpuSeconds(server.proc.pid) - cpu0 }
  }
  const c: { wall: number; cpu: number }[] = []
  const h: { wall: number; cpu: number }[] = []
  const plain: { wall: number; cpu: number }[] = []
  const splitRuns = Math.max(1, Math.min(runs, 3))
  const show = (x: typeof c) => `${(x.at(-1)!.wall / 1000).toFixed(2)} s (cpu ${x.at(-1)!.cpu.toFixed(2)} s)`
  for (let i = 0; i < splitRuns; i++) {
    const steps = [async () => c.push(await splitThroughApi(i)), async () => h.push(await cutsByHand(true)), async () => plain.push(await cutsByHand(false))]
    // rotate the order so no side always runs first or last
    for (let k = 0; k < steps.length; k++) await steps[(i + k) % steps.length]!()
    console.log(`split run ${i + 1}: api ${show(c)}, by hand ${show(h)}, by hand without the loudness branch ${show(plain)}`)
  }
  const med = (x: typeof c, k: 'wall' | 'cpu') => median(x.map((r) => r[k]))
  const range = (x: typeof c, y: typeof c, k: 'wall' | 'cpu') => {
    const ratios = x.map((r, i) => r[k] / y[i]![k])
    return `${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)}`
  }
  console.log(
    `(c) chapter split, ${CHAPTERS} tracks of a ${MINUTES}-minute source: api/by hand = ${(med(c, 'wall') / med(h, 'wall')).toFixed(3)} wall, ` +
      `${(med(c, 'cpu') / med(h, 'cpu')).toFixed(3)} CPU (medians; per run ${range(c, h, 'wall')} wall, ${range(c, h, 'cpu')} CPU); target ≤ 1.15`,
  )
  console.log(
    `    against the cuts without the loudness branch: ${(med(c, 'wall') / med(plain, 'wall')).toFixed(3)} wall, ${(med(c, 'cpu') / med(plain, 'cpu')).toFixed(3)} CPU (medians)`,
  )
}

/** (d) ReplayGain's share of a job: the job's conversion with and without the measurement, alternating. */
async function benchLoudness() {
  const dir = mkdtempSync(join(work, 'rg-'))
  const med = (x: { wall: number; cpu: number }[], k: 'wall' | 'cpu') => median(x.map((r) => r[k]))
  const convert = async (measure: boolean) => {
    const t0 = performance.now()
    const cpu = await convertByHand(video, `${dir}/out.mp3`, {}, measure)
    return { wall: performance.now() - t0, cpu }
  }
  const withRg: { wall: number; cpu: number }[] = []
  const without: { wall: number; cpu: number }[] = []
  console.log(`\nload average before (d): ${loadAverage()}`)
  // 21 pairs: the difference (about 0.1 s) is a few times the run-to-run spread of a conversion
  for (let i = 0; i < Math.max(21, runs); i++) {
    for (const measure of i % 2 ? [false, true] : [true, false]) (measure ? withRg : without).push(await convert(measure))
  }
  const list = (x: typeof withRg) => x.map((r) => r.cpu.toFixed(2)).join(' ')
  console.log(`(d) conversion CPU with the measurement: ${list(withRg)}; without: ${list(without)} (s, in run order)`)
  console.log(`load average after (d): ${loadAverage()}`)
  if (!apiJob.wall.length) {
    for (let i = 0; i < runs; i++) {
      const cpu0 = cpuSeconds(server.proc.pid)
      const t0 = performance.now()
      const id = await createJob(server, cookie, { video_url: benchPage, title: `Job ${i}`, artist: 'Bench', album: 'Bench' })
      await events.completed(id)
      apiJob.wall.push(performance.now() - t0)
      await Bun.sleep(50)
      apiJob.cpu.push(cpuSeconds(server.proc.pid) - cpu0)
    }
  }
  const extraWall = med(withRg, 'wall') - med(without, 'wall')
  const extraCpu = med(withRg, 'cpu') - med(without, 'cpu')
  // each pair ran back to back: the median of the pairs' differences is less exposed to the machine's load
  const pairedCpu = median(withRg.map((r, i) => r.cpu - without[i]!.cpu))
  console.log(
    `(d) ReplayGain measurement: conversion ${(med(without, 'wall') / 1000).toFixed(2)} s → ${(med(withRg, 'wall') / 1000).toFixed(2)} s wall, ` +
      `CPU ${med(without, 'cpu').toFixed(2)} s → ${med(withRg, 'cpu').toFixed(2)} s; a whole job takes ${(median(apiJob.wall) / 1000).toFixed(2)} s wall, ` +
      `${median(apiJob.cpu).toFixed(2)} s CPU: cost ${((100 * extraWall) / median(apiJob.wall)).toFixed(1)} % wall, ${((100 * extraCpu) / median(apiJob.cpu)).toFixed(1)} % CPU; target ≤ 5 %`,
  )
  console.log(`    median of the paired CPU differences: +${pairedCpu.toFixed(3)} s, ${((100 * pairedCpu) / median(apiJob.cpu)).toFixed(1)} % of a job`)
}
