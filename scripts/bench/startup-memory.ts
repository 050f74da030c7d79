#!/usr/bin/env bun
/**
 * Start-up and idle memory (a benchmark, not a test), the server started as `npm start` starts it
 * (`bun scripts/start.ts`: its build steps find the web app and the PGlite seed up to date and go
 * straight to the server), with the defaults of a fresh clone (scheduler on, yt-dlp's release
 * check and the canary run, only pointed at a closed loopback port so nothing leaves the machine):
 *
 *  - PGlite: time from spawn to the first 200 on /api/health on an empty DATA_DIR, then the RSS
 *    of the process tree after `--idle` seconds of a restart on that folder;
 *  - PostgreSQL (with `--database-url=`, or TEST_DATABASE_URL; skipped without): the same on a
 *    freshly created, empty database (migrated by the first start).
 *
 * Targets: PostgreSQL idle <= 100 MB, PGlite first 200 <= 2 s, PGlite idle <= 200 MB.
 * `--rounds` repeats each measurement and prints the median with the range. `--compare=<folder>`
 * also measures another checkout (e.g. the commit before a change, its node_modules, web/dist and
 * dist/ in place), alternating with this one round by round, so both meet the same load.
 *
 *   bun scripts/bench/startup-memory.ts [--rounds=3] [--idle=15] [--only=pglite|postgres] [--compare=/path/to/other/checkout]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'

const ROOT = join(import.meta.dir, '../..')
const BUN = process.execPath
const opt = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback
const ROUNDS = Number(opt('rounds', '3'))
const IDLE_S = Number(opt('idle', '15'))
const ONLY = opt('only', '')
const ADMIN_URL = opt('database-url', process.env.TEST_DATABASE_URL ?? '')
const COMPARE = opt('compare', '')
const trees = [{ name: 'this checkout', root: ROOT }, ...(COMPARE ? [{ name: COMPARE, root: COMPARE }] : [])]

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

/** VmRSS in MB of a process and everything it started (0 for processes gone meanwhile). */
function treeRss(pid: number): number {
  const parentOf = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
    } catch {}
  }
  const inTree = (p: number): boolean => p === pid || (p > 1 && parentOf.has(p) && inTree(parentOf.get(p)!))
  let kb = 0
  for (const p of parentOf.keys()) {
    if (!inTree(p)) continue
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0)
    } catch {}
  }
  return kb / 1024
}

async function start(root: string, dataDir: string, databaseUrl: string | null): Promise<{ proc: Subprocess; answerMs: number; healthyMs: number }> {
  const port = freePort()
  const env: Record<string, string> = {
    ...(Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(DATABASE_URL|TEST_DATABASE_URL|PORT|HOST|DATA_DIR|NODE_ENV)$/.test(k))) as Record<string, string>),
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    // what would reach the internet is pointed at a closed loopback port (it fails at once, as offline)
    YTDLP_RELEASE_URL: 'http://127.0.0.1:9/',
    YTDLP_CANARY_URL: 'http://127.0.0.1:9/canary',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  }
  const t0 = performance.now()
  const proc = Bun.spawn([BUN, 'scripts/start.ts'], { cwd: root, env, stdout: 'ignore', stderr: 'inherit' })
  children.add(proc)
  let answerMs = 0
  for (const deadline = Date.now() + 180_000; Date.now() < deadline; ) {
    if (proc.exitCode !== null) throw new Error(`the server exited with ${proc.exitCode}`)
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`)
      answerMs ||= performance.now() - t0
      if (res.ok) return { proc, answerMs, healthyMs: performance.now() - t0 }
    } catch {}
    await Bun.sleep(10)
  }
  throw new Error('the server did not answer 200 within 180 s')
}

async function stop(proc: Subprocess) {
  proc.kill('SIGTERM')
  await proc.exited
  children.delete(proc)
}

async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const { default: postgres } = await import('postgres')
  const admin = postgres(ADMIN_URL, { onnotice: () => {}, max: 1 })
  const name = `tf_bench_startup_${process.pid}_${crypto.randomUUID().slice(0, 8)}`
  await admin.unsafe(`create database ${name}`)
  await admin.end()
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const a = postgres(ADMIN_URL, { onnotice: () => {}, max: 1 })
      await a.unsafe(`drop database if exists ${name} with (force)`).catch(() => {})
      await a.end()
    },
  }
}

interface Round {
  firstAnswerMs: number
  firstHealthyMs: number
  restartHealthyMs: number
  idleMb: number
}

async function round(root: string, kind: 'pglite' | 'postgres'): Promise<Round> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tunefeed-startup-'))
  folders.push(dataDir)
  const database = kind === 'postgres' ? await freshDatabase() : null
  try {
    const first = await start(root, dataDir, database?.url ?? null)
    await stop(first.proc)
    const again = await start(root, dataDir, database?.url ?? null)
    await Bun.sleep(IDLE_S * 1000)
    const idleMb = treeRss(again.proc.pid)
    await stop(again.proc)
    return { firstAnswerMs: first.answerMs, firstHealthyMs: first.healthyMs, restartHealthyMs: again.healthyMs, idleMb }
  } finally {
    await database?.drop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const show = (xs: number[], unit: string, digits = 0) =>
  `${median(xs).toFixed(digits)} ${unit} (${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)})`

console.log(`start-up and idle memory on ${navigator.hardwareConcurrency} cores, load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}; ${ROUNDS} rounds, idle ${IDLE_S} s`)
// what `npm start` would build first: done here, outside the timings
for (const { root } of trees) Bun.spawnSync([BUN, 'scripts/build-seed.ts'], { cwd: root, stdout: 'ignore', stderr: 'inherit' })
const kinds = (['pglite', 'postgres'] as const).filter((k) => (!ONLY || ONLY === k) && (k === 'pglite' || ADMIN_URL))
const results: Record<string, Round[]> = {}
for (let i = 0; i < ROUNDS; i++) {
  for (const kind of kinds) {
    // the trees in turn, the first one first in odd rounds and last in even ones
    for (const tree of i % 2 ? [...trees].reverse() : trees) {
      const r = await round(tree.root, kind)
      ;(results[`${kind}|${tree.name}`] ??= []).push(r)
      console.log(
        `round ${i + 1} ${kind} (${tree.name}): first answer ${Math.round(r.firstAnswerMs)} ms, first 200 ${Math.round(r.firstHealthyMs)} ms, restart 200 ${Math.round(r.restartHealthyMs)} ms, idle ${Math.round(r.idleMb)} MB`,
      )
    }
  }
}
console.log('\n| database | checkout | first answer, empty | first 200, empty folder/database | 200 after restart | idle RSS after restart | targets |')
console.log('|---|---|---|---|---|---|---|')
for (const key of Object.keys(results)) {
  const [kind, tree] = key.split('|') as ['pglite' | 'postgres', string]
  const rs = results[key]!
  const first = rs.map((r) => r.firstHealthyMs / 1000)
  const idle = rs.map((r) => r.idleMb)
  const target = kind === 'pglite' ? `first 200 <= 2 s ${median(first) <= 2 ? 'OK' : 'OVER'}; idle <= 200 MB ${median(idle) <= 200 ? 'OK' : 'OVER'}` : `idle <= 100 MB ${median(idle) <= 100 ? 'OK' : 'OVER'}`
  console.log(`| ${kind} | ${tree} | ${show(rs.map((r) => r.firstAnswerMs / 1000), 's', 2)} | ${show(first, 's', 2)} | ${show(rs.map((r) => r.restartHealthyMs / 1000), 's', 2)} | ${show(idle, 'MB')} | ${target} |`)
}
process.exit(0)
