#!/usr/bin/env bun
/**
 * Scale-out benchmark (a benchmark, not a test), all on loopback:
 *
 *  A. Feed (`GET /api/youtube/videos/list`) and session (`GET /api/auth/session`)
 *     throughput through Caddy (deploy/Caddyfile.local) in front of one app
 *     process, then two (PostgreSQL + a bunqueue server on PostgreSQL, as in
 *     production), alternating for --rounds rounds; the ratio two/one, and the
 *     CPU each process (apps, Caddy, PostgreSQL, load generator) used.
 *  B. Start-up time (spawn → answering /api/health) and idle memory (RSS 3 s
 *     after start) of the compiled binary (dist/tunefeed, built when missing)
 *     and of `bun src/index.ts`, on a fresh PGlite folder (first start: initdb)
 *     and on the same folder again (restart), --starts times each.
 *
 *   bun scripts/bench/scale.ts [--url postgres://admin...] [--seconds 5] [--rounds 3]
 *                              [--connections 32] [--starts 3] [--skip-throughput] [--skip-startup]
 *
 * --url is a role that may create databases (default: the test runner's local
 * role); two databases are created and dropped. Load: wrk when installed,
 * else scripts/bench/load.ts. Expect little gain on a 2-core machine: the
 * load generator, Caddy, PostgreSQL and the apps share the cores.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { Subprocess } from 'bun'
import postgres from 'postgres'
import { createSession, SESSION_COOKIE } from '../../src/auth/session.ts'
import { openPostgres } from '../../src/db/client.ts'
import { setLogLevel } from '../../src/lib/logger.ts'
import { startBunqueueServer, tempDatabase, type TempDatabase } from '../../tests/deploy/scale-support.ts'
import { freePort, startCaddy } from '../../tests/deploy/support.ts'

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'postgres://tunefeed:tunefeed-test@127.0.0.1:5432/tunefeed' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    starts: { type: 'string', default: '3' },
    'skip-throughput': { type: 'boolean', default: false },
    'skip-startup': { type: 'boolean', default: false },
  },
})
setLogLevel('warn')
const ROOT = join(import.meta.dir, '../..')
const SECONDS = Number(values.seconds)
const ROUNDS = Number(values.rounds)
const CONNECTIONS = Number(values.connections)
const STARTS = Number(values.starts)
const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100)

const children: Subprocess[] = []
const cleanups: (() => Promise<void>)[] = []
const work = mkdtempSync(join(tmpdir(), 'tunefeed-scale-bench-'))
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** CPU seconds (user + system) a process and its finished children (PostgreSQL's backends) have used so far. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    // utime, stime, cutime, cstime
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / TICKS
  } catch {
    return 0
  }
}
/** Sum over a process and its live descendants. */
function treeCpu(pid: number): number {
  const kids = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number)
  return cpuSeconds(pid) + kids.reduce((n, k) => n + treeCpu(k), 0)
}
function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) / 1024
}

async function waitHealthy(url: string, proc: Subprocess, timeoutMs = 120_000) {
  const until = Date.now() + timeoutMs
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`process exited with ${proc.exitCode}`)
    try {
      if ((await fetch(`${url}/api/health`)).ok) return
    } catch {}
    if (Date.now() > until) throw new Error(`${url} not healthy in ${timeoutMs} ms`)
    await Bun.sleep(10)
  }
}

function spawnApp(cmd: string[], env: Record<string, string>, cwd = ROOT): { proc: Subprocess; url: string } {
  const port = freePort()
  const proc = Bun.spawn(cmd, {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', SCHEDULER: 'false', YTDLP_RELEASE_URL: 'http://127.0.0.1:9/', APP_SECRET: 'bench-secret-bench-secret-bench-secret-0', ...env },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  children.push(proc)
  return { proc, url: `http://127.0.0.1:${port}` }
}

async function stopProc(proc: Subprocess) {
  if (proc.exitCode !== null) return
  proc.kill('SIGTERM')
  const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000)
  await proc.exited
  clearTimeout(timer)
}

interface LoadResult {
  rps: number
  non2xx: number
  errors: number
  cpu: Record<string, number>
}

/** One timed run against `url`; CPU of every watched process over the run, in cores (CPU seconds / wall seconds). */
async function load(url: string, cookie: string, watch: Record<string, number>): Promise<LoadResult> {
  const before = Object.fromEntries(Object.entries(watch).map(([k, pid]) => [k, treeCpu(pid)]))
  const started = performance.now()
  let result: { rps: number; non2xx: number; errors: number }
  let generatorCpu = 0
  if (Bun.which('wrk')) {
    const proc = Bun.spawn(['wrk', `-t2`, `-c${CONNECTIONS}`, `-d${SECONDS}s`, '-H', `Cookie: ${cookie}`, url], { stdout: 'pipe', stderr: 'pipe' })
    const out = await new Response(proc.stdout).text()
    await proc.exited
    generatorCpu = cpuSecondsOfExited(proc)
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0)
    const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0)
    const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)?.slice(1).reduce((n, v) => n + Number(v), 0) ?? 0
    result = { rps, non2xx, errors }
  } else {
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'load.ts'), url, String(SECONDS), String(CONNECTIONS), `cookie: ${cookie}`], { stdout: 'pipe' })
    result = JSON.parse((await new Response(proc.stdout).text()).trim()) as typeof result
    await proc.exited
    generatorCpu = cpuSecondsOfExited(proc)
  }
  const wall = (performance.now() - started) / 1000
  const cpu = Object.fromEntries(Object.entries(watch).map(([k, pid]) => [k, (treeCpu(pid) - before[k]!) / wall]))
  cpu.loadgen = generatorCpu / wall
  return { ...result, cpu }
}

function cpuSecondsOfExited(proc: Subprocess): number {
  const usage = proc.resourceUsage()
  return usage ? Number(usage.cpuTime.user + usage.cpuTime.system) / 1e6 : 0
}

async function seed(url: string): Promise<string> {
  const database = await openPostgres(url, { max: 2 }) // migrates
  await database.close()
  const sql = postgres(url, { onnotice: () => {}, max: 1 })
  await sql.unsafe(`insert into youtube_video_categories (id, name) values (10, 'Music'), (20, 'Gaming'), (28, 'Science')`)
  await sql.unsafe(`
    insert into youtube_channels (id, title, handle, uploads_playlist_id, refreshed_at)
    select 'UC' || lpad(g::text, 22, '0'), 'Channel ' || g, '@bench-' || g, 'UU' || lpad(g::text, 22, '0'), now()
    from generate_series(1, 200) g`)
  await sql.unsafe(`
    insert into youtube_videos (id, channel_id, title, description, thumbnail, published_at, category_id, duration)
    select lpad(to_hex(g), 11, '0'), 'UC' || lpad((1 + g % 200)::text, 22, '0'), 'Video ' || g, 'About video ' || g,
           'https://example.com/v/' || g || '.jpg', timestamptz '2026-01-01' - make_interval(mins => g), (array[10, 20, 28])[1 + g % 3], 60 + g % 600
    from generate_series(1, 50000) g`)
  await sql.unsafe(`insert into youtube_channel_video_counts (channel_id, category_id, videos) select channel_id, category_id, count(*)::int from youtube_videos group by 1, 2`).catch(() => {})
  const [user] = await sql`insert into users (email, password_hash, verified_at) values ('bench@example.com', '!', now()) returning id`
  await sql.unsafe(`insert into youtube_subscriptions (user_id, channel_id, source) select '${user!.id}', 'UC' || lpad(g::text, 22, '0'), 'manual' from generate_series(1, 200, 2) g`)
  await sql.unsafe('vacuum analyze')
  await sql.end()
  const db = await openPostgres(url, { migrate: false, max: 1 })
  const { token } = await createSession(db.db, user!.id as string)
  await db.close()
  return `${SESSION_COOKIE}=${token}`
}

async function throughput() {
  console.log(`\n== A. throughput through Caddy: one vs two app processes (${cpus().length} cores, ${CONNECTIONS} connections, ${SECONDS} s runs, ${ROUNDS} rounds, ${Bun.which('wrk') ? 'wrk' : 'load.ts'})`)
  const appDb: TempDatabase = await tempDatabase(values.url!)
  const queueDb: TempDatabase = await tempDatabase(values.url!)
  cleanups.push(() => appDb.drop(), () => queueDb.drop())
  const cookie = await seed(appDb.url)
  const queue = await startBunqueueServer(queueDb.url, work)
  cleanups.unshift(() => queue.stop())
  const env = { DATA_DIR: join(work, 'data'), DATABASE_URL: appDb.url, QUEUE_URL: queue.url, TRUST_PROXY: '1' }
  const apps = [spawnApp([process.execPath, 'src/index.ts'], env), spawnApp([process.execPath, 'src/index.ts'], env)]
  for (const app of apps) await waitHealthy(app.url, app.proc)
  const caddyOne = await startCaddy(apps[0]!.url.replace('http://', ''), join(work, 'caddy-one'))
  const caddyTwo = await startCaddy(apps.map((a) => a.url.replace('http://', '')).join(' '), join(work, 'caddy-two'))
  cleanups.unshift(() => caddyOne.stop(), () => caddyTwo.stop())
  const pgPid = Number(spawnSync('sh', ['-c', `head -1 $(ls -d /var/lib/postgresql/*/main | tail -1)/postmaster.pid`], { encoding: 'utf8' }).stdout.trim()) || 0
  const caddyPid = (port: number) => Number(spawnSync('sh', ['-c', `ss -ltnpH 'sport = :${port}' | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2`], { encoding: 'utf8' }).stdout.trim())
  const watchOne = { app1: apps[0]!.proc.pid, caddy: caddyPid(caddyOne.port), postgres: pgPid }
  const watchTwo = { app1: apps[0]!.proc.pid, app2: apps[1]!.proc.pid, caddy: caddyPid(caddyTwo.port), postgres: pgPid }

  const targets = {
    feed: '/api/youtube/videos/list?page=1&per_page=50',
    session: '/api/auth/session',
  }
  for (const [name, path] of Object.entries(targets)) {
    const check = await fetch(caddyTwo.url + path, { headers: { cookie } })
    if (!check.ok) throw new Error(`${name}: ${check.status} ${await check.text()}`)
    await load(caddyOne.url + path, cookie, {}) // warm-up (JIT, connection pools, plans)
    await load(caddyTwo.url + path, cookie, {})
    const one: LoadResult[] = []
    const two: LoadResult[] = []
    for (let r = 0; r < ROUNDS; r++) {
      one.push(await load(caddyOne.url + path, cookie, watchOne))
      two.push(await load(caddyTwo.url + path, cookie, watchTwo))
      console.log(`  ${name} round ${r + 1}: one ${one.at(-1)!.rps.toFixed(0)} req/s, two ${two.at(-1)!.rps.toFixed(0)} req/s`)
    }
    const bad = [...one, ...two].reduce((n, x) => n + x.non2xx + x.errors, 0)
    const m1 = median(one.map((x) => x.rps))
    const m2 = median(two.map((x) => x.rps))
    const cpu = (runs: LoadResult[]) =>
      Object.keys(runs[0]!.cpu)
        .map((k) => `${k} ${median(runs.map((x) => x.cpu[k]!)).toFixed(2)}`)
        .join(', ')
    console.log(`${name}: one process ${m1.toFixed(0)} req/s, two ${m2.toFixed(0)} req/s, ratio ${(m2 / m1).toFixed(2)}${bad ? ` (${bad} non-2xx/errors!)` : ''}`)
    console.log(`  CPU (cores) one: ${cpu(one)}`)
    console.log(`  CPU (cores) two: ${cpu(two)}`)
  }
  for (const app of apps) await stopProc(app.proc)
}

async function startup() {
  console.log(`\n== B. start-up and idle memory: compiled binary vs bun src/index.ts (PGlite, ${STARTS} starts each)`)
  const binary = join(ROOT, 'dist', 'tunefeed')
  if (!existsSync(binary)) {
    const built = spawnSync(process.execPath, ['scripts/build-binary.ts'], { cwd: ROOT, stdio: 'inherit' })
    if (built.status !== 0) throw new Error('build-binary failed')
  }
  const variants = { binary: [binary], source: [process.execPath, join(ROOT, 'src/index.ts')] }
  const rows: string[] = []
  for (const [name, cmd] of Object.entries(variants)) {
    const first: number[] = []
    const again: number[] = []
    const rss: number[] = []
    for (let i = 0; i < STARTS; i++) {
      const home = join(work, `${name}-${i}`)
      mkdirSync(home)
      for (const phase of ['first', 'again'] as const) {
        const t0 = performance.now()
        const app = spawnApp(cmd, { DATA_DIR: join(home, 'data') }, home)
        await waitHealthy(app.url, app.proc)
        const ms = performance.now() - t0
        ;(phase === 'first' ? first : again).push(ms)
        if (phase === 'again') {
          await Bun.sleep(3000)
          rss.push(rssMb(app.proc.pid))
        }
        await stopProc(app.proc)
      }
    }
    rows.push(`${name.padEnd(7)} first start ${median(first).toFixed(0)} ms, restart ${median(again).toFixed(0)} ms, idle RSS ${median(rss).toFixed(0)} MB`)
  }
  for (const row of rows) console.log(row)
}

try {
  if (!values['skip-throughput']) await throughput()
  if (!values['skip-startup']) await startup()
} finally {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
  for (const cleanup of cleanups) await cleanup().catch(() => {})
  rmSync(work, { recursive: true, force: true })
}
