#!/usr/bin/env bun
/**
 * Footprint of the server (a benchmark, not a test), for `npm start`'s server
 * (`bun src/index.ts`, after its build steps) and the compiled binary:
 *
 *  1. first start on an empty data folder (embedded PGlite): peak RSS of the
 *     process (VmHWM, sampled until the first answer and through a sign-up),
 *     the time from spawn to the first answer from /api/health (any status: the
 *     tools are looked for after the server answers, health says `starting`
 *     with a 503 until then) and to its first 200;
 *  2. idle RSS after a restart on that folder (10 s after its first answer);
 *  3. GET /api/auth/session against a bare Hono hello-world (scripts/bench/hello.ts)
 *     in the same run, same load generator (scripts/bench/load.ts), alternating.
 *
 * Targets: first-start peak <= 400 MB, idle <= 200 MB, first answer <= 2 s,
 * session >= 0.5 x hello-world.
 *
 *   bun scripts/bench/footprint.ts [--target=source|binary|both] [--seconds=3] [--rounds=3] [--only=session]
 *
 * `--only=session` skips the 10 s idle wait and prints step 3 alone (the first start still
 * runs: the session needs an account), with each round's hello-world and session numbers.
 *
 * The binary is dist/tunefeed (built by scripts/build-binary.ts when missing).
 * Loopback only; every process started here is stopped.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { HttpClient, signUp } from '../../tests/deploy/support.ts'

const ROOT = join(import.meta.dir, '../..')
const BUN = process.execPath
const opt = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback
const TARGET = opt('target', 'both')
const SECONDS = Number(opt('seconds', '3'))
const ROUNDS = Number(opt('rounds', '3'))
const ONLY_SESSION = opt('only', '') === 'session'
const CONNECTIONS = 32

const children = new Set<Subprocess>()
const folders: string[] = []
process.on('exit', () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL')
  for (const f of folders) rmSync(f, { recursive: true, force: true })
})

function freePort(): number {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

/** kB fields of /proc/<pid>/status (VmRSS, VmHWM), 0 once the process is gone. */
function status(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024
  } catch {
    return 0
  }
}

interface Started {
  proc: Subprocess
  base: string
  firstAnswerMs: number
  healthyMs: number
}

async function start(cmd: string[], dataDir: string, cwd = ROOT): Promise<Started> {
  const port = freePort()
  const env = {
    ...process.env,
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    SCHEDULER: 'false',
    LOG_LEVEL: 'warn',
    APP_SECRET: 'footprint-secret-footprint-secret-0000',
    // the managed yt-dlp's release check runs as in production, against a closed loopback port
    YTDLP_RELEASE_URL: 'http://127.0.0.1:9/',
  }
  const t0 = performance.now()
  const proc = Bun.spawn(cmd, { cwd, env, stdout: 'ignore', stderr: 'inherit' })
  children.add(proc)
  const base = `http://127.0.0.1:${port}`
  let firstAnswerMs = 0
  for (const deadline = Date.now() + 180_000; Date.now() < deadline; ) {
    if (proc.exitCode !== null) throw new Error(`${cmd.join(' ')} exited with ${proc.exitCode}`)
    try {
      const res = await fetch(`${base}/api/health`)
      firstAnswerMs ||= performance.now() - t0
      if (res.ok) return { proc, base, firstAnswerMs, healthyMs: performance.now() - t0 }
    } catch {}
    await Bun.sleep(20)
  }
  throw new Error(`${cmd.join(' ')} did not answer in time`)
}

async function stop(proc: Subprocess) {
  proc.kill('SIGTERM')
  await proc.exited
  children.delete(proc)
}

async function load(url: string, seconds: number, headers: Record<string, string>): Promise<number> {
  const args = [BUN, join(import.meta.dir, 'load.ts'), url, String(seconds), String(CONNECTIONS), ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)]
  const proc = Bun.spawn(args, { stdout: 'pipe', stderr: 'inherit' })
  const out = JSON.parse((await new Response(proc.stdout).text()).trim()) as { rps: number; non2xx: number; errors: number; requests: number }
  await proc.exited
  if (out.non2xx + out.errors > 0) throw new Error(`${url}: ${out.non2xx + out.errors} failed of ${out.requests}`)
  return out.rps
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

async function measure(name: string, cmd: string[], cwd = ROOT) {
  const dataDir = mkdtempSync(join(tmpdir(), 'tunefeed-footprint-'))
  folders.push(dataDir)
  // 1. first start on an empty folder, then a sign-up (mail, verify, login)
  const first = await start(cmd, dataDir, cwd)
  const client = new HttpClient(first.base)
  await signUp(client, join(dataDir, 'mail'), 'footprint@example.com')
  const firstPeak = status(first.proc.pid, 'VmHWM')
  await stop(first.proc)

  // 2. restart, idle
  const again = await start(cmd, dataDir, cwd)
  if (!ONLY_SESSION) await Bun.sleep(10_000)
  const idle = status(again.proc.pid, 'VmRSS')
  const restartPeak = status(again.proc.pid, 'VmHWM')

  // 3. session route against hello-world, alternating
  const session = client.at(again.base)
  await session.json('/api/auth/login', { email: 'footprint@example.com', password: 'password123' })
  const cookie = session.cookieHeader
  const hello = Bun.spawn([BUN, join(import.meta.dir, 'hello.ts')], { env: { ...process.env, PORT: '0' }, stdout: 'pipe', stderr: 'inherit' })
  children.add(hello)
  const reader = hello.stdout.getReader()
  let line = ''
  while (!/listening \d+/.test(line)) line += new TextDecoder().decode((await reader.read()).value)
  const helloUrl = `http://127.0.0.1:${/listening (\d+)/.exec(line)![1]}/`
  const sessionUrl = `${again.base}/api/auth/session`
  await load(helloUrl, 1, {})
  await load(sessionUrl, 1, { cookie })
  const helloRuns: number[] = []
  const sessionRuns: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    helloRuns.push(await load(helloUrl, SECONDS, {}))
    sessionRuns.push(await load(sessionUrl, SECONDS, { cookie }))
  }
  await stop(hello)
  await stop(again.proc)
  const ratio = median(sessionRuns) / median(helloRuns)
  const row = (what: string, value: string, ok: boolean) => console.log(`  ${what.padEnd(38)} ${value.padStart(14)}  ${ok ? 'OK' : 'OVER TARGET'}`)
  console.log(`${name}: ${cmd.join(' ')}`)
  if (ONLY_SESSION) {
    row('session / hello-world (>= 0.5)', `${ratio.toFixed(2)}`, ratio >= 0.5)
    console.log(`  rounds (hello-world / session req/s): ${helloRuns.map((h, i) => `${Math.round(h)}/${Math.round(sessionRuns[i]!)}`).join(', ')}`)
    console.log(`  (hello-world ${Math.round(median(helloRuns))} req/s, session ${Math.round(median(sessionRuns))} req/s, median of ${ROUNDS} × ${SECONDS} s, ${CONNECTIONS} connections)`)
    return
  }
  row('first start peak RSS (<= 400 MB)', `${Math.round(firstPeak)} MB`, firstPeak <= 400)
  row('first answer, fresh folder (<= 2 s)', `${(first.firstAnswerMs / 1000).toFixed(2)} s`, first.firstAnswerMs <= 2000)
  row('health 200, fresh folder', `${(first.healthyMs / 1000).toFixed(2)} s`, true)
  row('idle RSS after restart (<= 200 MB)', `${Math.round(idle)} MB`, idle <= 200)
  row('restart peak RSS', `${Math.round(restartPeak)} MB`, true)
  row('first answer after restart', `${(again.firstAnswerMs / 1000).toFixed(2)} s`, true)
  row('session / hello-world (>= 0.5)', `${ratio.toFixed(2)}`, ratio >= 0.5)
  console.log(`  (hello-world ${Math.round(median(helloRuns))} req/s, session ${Math.round(median(sessionRuns))} req/s, median of ${ROUNDS} × ${SECONDS} s, ${CONNECTIONS} connections)`)
}

console.log(`footprint on ${navigator.hardwareConcurrency} cores, load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`)
if (TARGET === 'source' || TARGET === 'both') {
  // what `npm start` runs after its build steps (web app, database seed)
  Bun.spawnSync([BUN, 'scripts/build-seed.ts'], { cwd: ROOT, stdout: 'inherit', stderr: 'inherit' })
  await measure('npm start (server)', [BUN, 'src/index.ts'])
}
if (TARGET === 'binary' || TARGET === 'both') {
  const binary = join(ROOT, 'dist/tunefeed')
  if (!(await Bun.file(binary).exists())) Bun.spawnSync([BUN, 'scripts/build-binary.ts'], { cwd: ROOT, stdout: 'inherit', stderr: 'inherit' })
  const cwd = mkdtempSync(join(tmpdir(), 'tunefeed-footprint-bin-'))
  folders.push(cwd)
  await measure('compiled binary', [binary], cwd)
}
process.exit(0)
