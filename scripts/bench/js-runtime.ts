#!/usr/bin/env bun
/**
 * yt-dlp's JavaScript runtime: Deno against Bun (not a test).
 *
 *   bun scripts/bench/js-runtime.ts [--runs=10] [--ytdlp=/path/to/yt-dlp]
 *
 * (1) Per extraction: `yt-dlp -J` of a challenge-free extraction (a local WAV through the generic
 *     extractor, as the managed copy's self-test does), with `--no-js-runtimes` (baseline),
 *     `--js-runtimes deno:<package's Deno>` and `--js-runtimes bun:<this Bun>`, alternated; needs
 *     a yt-dlp ≥ 2025.11 (`--ytdlp=`, else `yt-dlp` on PATH; skipped when older).
 * (2) Per challenge: the runtime as yt-dlp starts it for a YouTube challenge (the script on stdin;
 *     Deno: `run --ext=js --no-code-cache --no-prompt --no-remote --no-lock --node-modules-dir=none
 *     --no-config --no-npm --cached-only -`; Bun: `--bun run --no-addons --prefer-offline
 *     --no-install -`), running a solver-sized script: a 2.5 MB player-like source compiled with
 *     `new Function`, then 200 n/sig-style transforms and a JSON answer. Baseline: Bun (what the app
 *     used before), in the same run; Node (this machine's, for scale) when present.
 * Medians and ratios of medians are printed; every run's workers are started alternately.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runProcess, toolEnv } from '../../src/lib/process.ts'
import { denoFromPackage, JS_RUNTIME_SINCE } from '../../src/tools/js-runtime.ts'
import { silentWav } from '../../src/tools/managed.ts'

const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 10)
const ytdlp = process.argv.find((a) => a.startsWith('--ytdlp='))?.slice(8) ?? Bun.which('yt-dlp')
const deno = denoFromPackage()
const bun = process.execPath
const node = Bun.which('node')
if (!deno) throw new Error('no Deno: npm install (the deno package) first')
const work = mkdtempSync(join(tmpdir(), 'tunefeed-bench-js-'))
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const ms = (x: number) => `${x.toFixed(0)} ms`
const env = toolEnv({ HOME: work, TMPDIR: work })

async function timed(cmd: string[], stdin?: string): Promise<number> {
  const started = performance.now()
  if (stdin === undefined) {
    const result = await runProcess(cmd, { collectStdout: true, env })
    if (result.code !== 0) throw new Error(`${cmd.join(' ')} exited ${result.code}: ${result.stderr.slice(-400)}`)
  } else {
    const proc = Bun.spawn(cmd, { stdin: new TextEncoder().encode(stdin), stdout: 'pipe', stderr: 'pipe', env })
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    if (code !== 0 || !out.includes('"n"')) throw new Error(`${cmd[0]} exited ${code}: ${err.slice(-400)}`)
  }
  return performance.now() - started
}

/** Runs each variant `runs` times (after one warm-up each), alternating; the median per variant. */
async function alternate(variants: Record<string, () => Promise<number>>): Promise<Record<string, number>> {
  const names = Object.keys(variants)
  const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]))
  for (const n of names) await variants[n]!()
  for (let i = 0; i < runs; i++) {
    const order = i % 2 ? [...names].reverse() : names
    for (const n of order) times[n]!.push(await variants[n]!())
  }
  return Object.fromEntries(names.map((n) => [n, median(times[n]!)]))
}

/** A player-sized source (about 2.5 MB of functions, like YouTube's base.js) and a solver that compiles and runs it. */
function solverScript(): string {
  const fns: string[] = []
  for (let i = 0; fns.join('').length < 2_500_000; i++) {
    fns.push(`function f${i}(a){var b=a.split("");for(var c=0;c<b.length;c++){b[c]=String.fromCharCode((b[c].charCodeAt(0)+${i % 13})%128)}b.reverse();return b.join("")+"${i.toString(36)}"}`)
  }
  const player = `${fns.join('\n')}\nreturn {n:function(x){for(var i=0;i<40;i++)x=f${fns.length - 1 - 7}(x).slice(0,24);return x},sig:function(x){return f3(f2(f1(x)))}};`
  return `const source = ${JSON.stringify(player)};
const player = new Function(source)();
const out = { n: [], sig: [] };
for (let i = 0; i < 100; i++) { out.n.push(player.n('nchallenge' + i)); out.sig.push(player.sig('signature' + i)); }
console.log(JSON.stringify({ type: 'result', n: out.n.length, sig: out.sig.length, sample: out.n[0] }));`
}

try {
  const version = (cmd: string[]) => spawnSync(cmd[0]!, cmd.slice(1)).stdout?.toString().trim().split('\n')[0] ?? '?'
  console.log(`Deno ${version([deno, '--version'])} (${deno}); Bun ${Bun.version}; ${node ? `Node ${version([node, '--version'])}` : 'no Node'}; ${runs} runs each`)

  // (2) the runtime as yt-dlp starts it for a challenge
  const script = solverScript()
  console.log(`\n(2) one challenge-sized run (${(script.length / 1e6).toFixed(1)} MB script on stdin), median wall time:`)
  const solve = await alternate({
    bun: () => timed([bun, '--bun', 'run', '--no-addons', '--prefer-offline', '--no-install', '-'], script),
    deno: () => timed([deno, 'run', '--ext=js', '--no-code-cache', '--no-prompt', '--no-remote', '--no-lock', '--node-modules-dir=none', '--no-config', '--no-npm', '--cached-only', '-'], script),
    ...(node ? { node: () => timed([node, '-'], script) } : {}),
  })
  for (const [name, t] of Object.entries(solve)) console.log(`    ${name.padEnd(5)} ${ms(t).padStart(7)}  ${(t / solve.bun!).toFixed(2)}× Bun`)
  const start = await alternate({
    bun: () => timed([bun, '--bun', 'run', '--no-addons', '--prefer-offline', '--no-install', '-'], 'console.log(JSON.stringify({n:1}))'),
    deno: () => timed([deno, 'run', '--ext=js', '--no-code-cache', '--no-prompt', '--no-remote', '--no-lock', '--node-modules-dir=none', '--no-config', '--no-npm', '--cached-only', '-'], 'console.log(JSON.stringify({n:1}))'),
  })
  console.log(`    start-up alone (a one-line script): bun ${ms(start.bun!)}, deno ${ms(start.deno!)} (${(start.deno! / start.bun!).toFixed(2)}×)`)

  // (1) per extraction, challenge-free
  const ytVersion = ytdlp ? version([ytdlp, '--version']) : null
  if (!ytdlp || !ytVersion || ytVersion < JS_RUNTIME_SINCE) {
    console.log(`\n(1) skipped: needs a yt-dlp ≥ 2025.11 (--ytdlp=...); ${ytdlp ?? 'none'} is ${ytVersion ?? 'missing'}`)
  } else {
    const wav = join(work, 'sample.wav')
    writeFileSync(wav, silentWav())
    const extract = (runtime: string[]) => () => timed([ytdlp, '--ignore-config', '--no-cache-dir', '--enable-file-urls', '-J', '--skip-download', ...runtime, `file://${wav}`])
    console.log(`\n(1) yt-dlp ${ytVersion} -J of a local file (no challenge), median wall time:`)
    const per = await alternate({
      none: extract(['--no-js-runtimes']),
      deno: extract(['--no-js-runtimes', '--js-runtimes', `deno:${deno}`]),
      bun: extract(['--no-js-runtimes', '--js-runtimes', `bun:${bun}`]),
    })
    for (const [name, t] of Object.entries(per)) console.log(`    ${name.padEnd(5)} ${ms(t).padStart(7)}  ${(t / per.none!).toFixed(2)}× none, ${(t / per.bun!).toFixed(2)}× Bun`)
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}
