#!/usr/bin/env bun
/**
 * HTTP throughput of the session check against a bare Hono baseline, both on
 * Bun on 127.0.0.1, measured in the same run with the same load generator.
 *
 *   bun scripts/bench/http.ts [--seconds=5] [--rounds=3] [--connections=32] [--tool=wrk|bun]
 *
 * 1. A fresh DATA_DIR gets a verified user (scripts/admin.ts create-user).
 * 2. `bun src/index.ts` starts on it (PGlite; LOG_LEVEL from the environment,
 *    default info: one log line per request, output to /dev/null) and the user
 *    logs in for a session cookie.
 * 3. scripts/bench/hello.ts: a Hono hello-world on Bun.
 * 4. Each target gets a warm-up, then timed runs, alternating between the two
 *    targets for --rounds rounds (so a busy machine slows both alike): wrk
 *    (Debian's `wrk`, used when installed) or scripts/bench/load.ts in its own
 *    process.
 *
 * Prints each run, the median req/s of both and the ratio of the medians
 * (target: session >= 0.5 x hello-world). The same session check is also
 * measured with an API token (`Authorization: Bearer`, src/auth/bearer.ts).
 * Loopback only; every run is bounded in time; all processes are stopped.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'

const ROOT = join(import.meta.dir, '../..')
const opt = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback
const SECONDS = Number(opt('seconds', '5'))
const ROUNDS = Number(opt('rounds', '3'))
const CONNECTIONS = Number(opt('connections', '32'))
const TOOL = opt('tool', Bun.which('wrk') ? 'wrk' : 'bun')
const BUN = process.execPath

const children: Subprocess[] = []
const dataDir = mkdtempSync(join(tmpdir(), 'tunefeed-bench-'))
const cleanup = () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM')
  rmSync(dataDir, { recursive: true, force: true })
}
process.on('exit', cleanup)

/** A free loopback port (bound once by a throwaway server, then released). */
function freePort(): number {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

/** Spawns a server on `port` and resolves once `readyPath` answers (output goes to /dev/null). */
async function spawnServer(cmd: string[], env: Record<string, string>, port: number, readyPath: string): Promise<Subprocess> {
  const proc = Bun.spawn(cmd, { cwd: ROOT, env: { ...process.env, ...env, PORT: String(port) }, stdout: 'ignore', stderr: 'inherit' })
  children.push(proc)
  const deadline = Date.now() + 120_000
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`${cmd.join(' ')} exited with ${proc.exitCode}`)
    try {
      if ((await fetch(`http://127.0.0.1:${port}${readyPath}`)).ok) return proc
    } catch {}
    await Bun.sleep(100)
  }
  throw new Error(`${cmd.join(' ')} did not answer on ${port} in time`)
}

interface Result {
  rps: number
  requests: number
  bad: number
}

async function load(url: string, seconds: number, headers: Record<string, string>): Promise<Result> {
  if (TOOL === 'wrk') {
    const args = ['wrk', '-t2', `-c${CONNECTIONS}`, `-d${seconds}s`]
    for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`)
    const proc = Bun.spawn([...args, url], { stdout: 'pipe', stderr: 'inherit' })
    const out = await new Response(proc.stdout).text()
    await proc.exited
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1])
    const requests = Number(/(\d+) requests in/.exec(out)?.[1])
    const bad = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0) + Number(/Socket errors:.*?(\d+)/.exec(out)?.[1] ?? 0)
    if (!rps) throw new Error(`could not read wrk's output:\n${out}`)
    return { rps, requests, bad }
  }
  const proc = Bun.spawn(
    [BUN, join(import.meta.dir, 'load.ts'), url, String(seconds), String(CONNECTIONS), ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)],
    { stdout: 'pipe', stderr: 'inherit' },
  )
  const out = JSON.parse((await new Response(proc.stdout).text()).trim()) as { rps: number; requests: number; non2xx: number; errors: number }
  await proc.exited
  return { rps: out.rps, requests: out.requests, bad: out.non2xx + out.errors }
}

async function measure(name: string, url: string, headers: Record<string, string> = {}): Promise<number> {
  const result = await load(url, SECONDS, headers)
  if (result.bad > 0) throw new Error(`${name}: ${result.bad} failed or non-2xx responses out of ${result.requests}`)
  console.log(`  ${name.padEnd(28)} ${Math.round(result.rps).toLocaleString('en')} req/s (${result.requests} requests)`)
  return result.rps
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const fmt = (n: number) => Math.round(n).toLocaleString('en')

console.log(`tool: ${TOOL}, ${CONNECTIONS} connections, ${SECONDS} s per target, ${navigator.hardwareConcurrency} cores`)

// 1. a verified user in a fresh data folder
const email = 'bench@example.com'
const password = 'bench-password'
const created = Bun.spawnSync([BUN, 'scripts/admin.ts', 'create-user', email, password], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir } })
if (created.exitCode !== 0) throw new Error(`create-user failed: ${created.stderr.toString()}`)

// 2. the real server and a session cookie
const appPort = freePort()
await spawnServer(
  [BUN, 'src/index.ts'],
  { DATA_DIR: dataDir, HOST: '127.0.0.1', SCHEDULER: 'false', YTDLP_RELEASE_URL: 'http://127.0.0.1:9/', APP_SECRET: 'bench-secret-bench-secret-bench-secret-00' },
  appPort,
  '/api/health',
)
const base = `http://127.0.0.1:${appPort}`
const login = await fetch(`${base}/api/auth/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email, password }),
})
if (login.status !== 200) throw new Error(`login failed: ${login.status} ${await login.text()}`)
const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!
const check = await fetch(`${base}/api/auth/session`, { headers: { cookie } })
if (check.status !== 200) throw new Error(`session check failed: ${check.status}`)
const made = await fetch(`${base}/api/auth/tokens`, {
  method: 'POST',
  headers: { cookie, 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'bench' }),
})
if (made.status !== 201) throw new Error(`token failed: ${made.status} ${await made.text()}`)
const bearer = `Bearer ${((await made.json()) as { token: string }).token}`

// 3. the baseline
const helloPort = freePort()
await spawnServer([BUN, join(import.meta.dir, 'hello.ts')], {}, helloPort, '/')

// 4. warm up both (JIT, connection pools, caches), then alternate
const helloUrl = `http://127.0.0.1:${helloPort}/`
const sessionUrl = `${base}/api/auth/session`
await load(helloUrl, 1, {})
await load(sessionUrl, 1, { Cookie: cookie })
await load(sessionUrl, 1, { Authorization: bearer })
const helloRuns: number[] = []
const sessionRuns: number[] = []
const tokenRuns: number[] = []
for (let round = 1; round <= ROUNDS; round++) {
  console.log(`round ${round}/${ROUNDS}`)
  helloRuns.push(await measure('hono hello-world (bun)', helloUrl))
  sessionRuns.push(await measure('GET /api/auth/session', sessionUrl, { Cookie: cookie }))
  tokenRuns.push(await measure('  same, with an API token', sessionUrl, { Authorization: bearer }))
}
const helloRps = median(helloRuns)
const sessionRps = median(sessionRuns)
const ratio = sessionRps / helloRps
console.log(`median hono hello-world:      ${fmt(helloRps)} req/s`)
console.log(`median GET /api/auth/session: ${fmt(sessionRps)} req/s`)
console.log(`ratio session / hello-world:  ${ratio.toFixed(2)} (target >= 0.5) ${ratio >= 0.5 ? 'OK' : 'BELOW TARGET'}`)
const tokenRps = median(tokenRuns)
console.log(`median same with API token:   ${fmt(tokenRps)} req/s`)
console.log(`ratio token / hello-world:    ${(tokenRps / helloRps).toFixed(2)}; token / cookie: ${(tokenRps / sessionRps).toFixed(2)}`)

for (const child of children) child.kill('SIGTERM')
await Promise.all(children.map((c) => c.exited))
cleanup()
process.exit(0)
