#!/usr/bin/env bun
/**
 * Job worker benchmark (not a test): `bun scripts/bench/jobs.ts [--seconds=30] [--rounds=3] [--samples=40] [--part=idle|latency]`
 *
 *  1. idle CPU of the whole server (`bun src/index.ts`, embedded PGlite on a
 *     temp DATA_DIR, SCHEDULER on as in production): user+sys from
 *     /proc/<pid>/stat over `--seconds` of idleness, `--rounds` windows, next to
 *     a bare Hono hello-world (scripts/bench/hello.ts) sampled over the same
 *     windows as the baseline of the run (Bun's own idle cost);
 *  2. enqueue → start latency of the job worker (src/jobs/queue.ts on its
 *     embedded manager, in this process): `--samples` jobs, each enqueued
 *     into an idle worker at a random moment (so it lands anywhere in the
 *     worker's idle poll cycle), the time from `enqueue` to the handler's
 *     first line; median, 90th percentile and max.
 *
 * Target (docs/decisions/123-idle-job-worker.md): the idle server near Bun's
 * own floor, and a new job started within ~100 ms. Loopback only; every
 * process started here is stopped.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { BunqueueJobs } from '../../src/jobs/queue.ts'
import { setLogLevel } from '../../src/lib/logger.ts'
import type { JobDefinition } from '../../src/jobs/types.ts'
import type { AppContext } from '../../src/context.ts'
import { startServerProcess } from '../../tests/support/server-process.ts'

const opt = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback
const SECONDS = Number(opt('seconds', '30'))
const ROUNDS = Number(opt('rounds', '3'))
const SAMPLES = Number(opt('samples', '40'))
const PART = opt('part', 'all')
const work = mkdtempSync(join(tmpdir(), 'tunefeed-bench-jobs-'))
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b)
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)]!

/** CPU seconds (user+sys) the process itself used so far, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // utime and stime are fields 14-15 (1-based), i.e. 11-12 after the command
  return (Number(fields[11]) + Number(fields[12])) / 100
}

async function idleCpu() {
  const server = await startServerProcess({ DATA_DIR: join(work, 'data'), SCHEDULER: 'true' }, 180_000)
  const hello = Bun.spawn([process.execPath, join(import.meta.dir, 'hello.ts')], { env: { ...process.env, PORT: '0' }, stdout: 'ignore', stderr: 'inherit' })
  try {
    // until the start-up work (tools check, schedules, first sweeps) is over
    for (let i = 0; i < 300 && !(await fetch(`${server.url}/api/health`).then((r) => r.ok, () => false)); i++) await Bun.sleep(100)
    await Bun.sleep(5_000)
    const serverPct: number[] = []
    const helloPct: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const s0 = cpuSeconds(server.proc.pid)
      const h0 = cpuSeconds(hello.pid)
      const t0 = performance.now()
      await Bun.sleep(SECONDS * 1000)
      const wall = (performance.now() - t0) / 1000
      serverPct.push(((cpuSeconds(server.proc.pid) - s0) / wall) * 100)
      helloPct.push(((cpuSeconds(hello.pid) - h0) / wall) * 100)
      console.log(`  window ${round + 1}: server ${serverPct.at(-1)!.toFixed(2)} %, hello-world ${helloPct.at(-1)!.toFixed(2)} % of one core`)
    }
    const s = median(serverPct)
    const h = median(helloPct)
    console.log(`idle CPU, median of ${ROUNDS} × ${SECONDS} s: server ${s.toFixed(2)} % (${(s * 10).toFixed(1)} ms CPU per s), hello-world ${h.toFixed(2)} %; server − hello-world ${(s - h).toFixed(2)} points`)
  } finally {
    hello.kill('SIGTERM')
    await hello.exited
    await server.stop()
  }
}

async function latency() {
  const started = new Map<number, number>()
  const def: JobDefinition<{ n: number }> = {
    name: 'bench.noop',
    payload: z.object({ n: z.number().int() }),
    async run(_ctx, { n }) {
      started.set(n, performance.now())
    },
  }
  const jobs = new BunqueueJobs([{ definitions: [def] }], {
    dataPath: join(work, 'queue', 'jobs.db'),
    concurrency: 2,
    defaultTimeoutMs: 10_000,
    scheduler: false,
  })
  setLogLevel('warn')
  await jobs.start({} as AppContext)
  const ms: number[] = []
  try {
    await Bun.sleep(500)
    for (let n = 0; n < SAMPLES; n++) {
      await Bun.sleep(100 + Math.random() * 1_400)
      const t0 = performance.now()
      await jobs.enqueue(def, { n })
      for (const end = Date.now() + 30_000; !started.has(n) && Date.now() < end; ) await Bun.sleep(1)
      if (!started.has(n)) throw new Error(`job ${n} did not start within 30 s`)
      ms.push(started.get(n)! - t0)
    }
  } finally {
    await jobs.stop()
  }
  const s = sorted(ms)
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!
  console.log(`enqueue → start, ${SAMPLES} jobs into an idle worker: median ${at(0.5).toFixed(1)} ms, p90 ${at(0.9).toFixed(1)} ms, max ${s.at(-1)!.toFixed(1)} ms, min ${s[0]!.toFixed(1)} ms`)
}

console.log(`jobs bench on ${navigator.hardwareConcurrency} cores, load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`)
try {
  if (PART === 'all' || PART === 'latency') await latency()
  if (PART === 'all' || PART === 'idle') await idleCpu()
} finally {
  rmSync(work, { recursive: true, force: true })
}
console.log(`load average after: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`)
process.exit(0)
