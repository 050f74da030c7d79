import { appendFileSync, chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A stand-in yt-dlp for tests, put on YTDLP_PATH: it records each argument
 * list, answers `--version` with a chosen version, and for a URL whose path
 * is `/fail/<case id>` prints that case's real text from
 * tests/fixtures/tool-errors.json and exits as yt-dlp does. `/flaky/<n>/<case id>/...`
 * fails with the case's text for the first n calls of that URL, then behaves
 * as the rest of the path without the prefix. `/sleep/<ms>/<uploader>` waits,
 * then answers `-J` with that uploader. Each call's cookies file (`--cookies`)
 * is recorded with its mode and text. Anything else runs Debian's
 * yt-dlp with the arguments it understands (the 2023 build knows no
 * `--js-runtimes`), so successful jobs work too. `urls` maps a link (say a
 * YouTube watch URL) to the loopback URL actually downloaded, so a job can
 * present a YouTube video id while yt-dlp only ever talks to 127.0.0.1.
 * `-v` without a URL prints a debug header as yt-dlp ≥ 2025.11 does: its
 * `[debug] JS runtimes:` line names each `--js-runtimes` runtime that answers
 * `--version` (run for real), marked `(unsupported)` when its name is in
 * `unsupported`. Each call's environment is recorded (`environments()`).
 */
export interface FakeYtdlp {
  path: string
  /** The argument lists of every call so far (without argv[0]). */
  calls(): string[][]
  /** The cookies file each call was given: its path, mode and text at the time. */
  cookieFiles(): { path: string; mode: number; text: string }[]
  /** The environment of every call so far, with its arguments. */
  environments(): { args: string[]; env: Record<string, string> }[]
  /** Every call with the time it started (ms since the epoch, taken as the stand-in starts). */
  starts(): { at: number; args: string[] }[]
  /** While on, every call but `--version` answers YouTube's bot check (the fixture's `bot-check` text). */
  botCheck(on: boolean): void
  /** Maps one more link (or maps it anew) for the calls from now on, as `urls` does. */
  mapUrl(from: string, to: string): void
  stop(): void
}

export interface ToolErrorCase {
  id: string
  kind: string
  tool: 'yt-dlp' | 'ffmpeg'
  stream: 'stdout' | 'stderr'
  exit: number
  text: string
  source: string
}

export const FIXTURE = join(import.meta.dir, '../fixtures/tool-errors.json')
export const toolErrorCases = (): ToolErrorCase[] => (JSON.parse(readFileSync(FIXTURE, 'utf8')) as { cases: ToolErrorCase[] }).cases

export function startFakeYtdlp(opts: { version?: string; realYtdlp?: string; urls?: Record<string, string>; unsupported?: string[] } = {}): FakeYtdlp {
  const dir = mkdtempSync(join(tmpdir(), 'tunefeed-fake-ytdlp-'))
  const log = join(dir, 'calls.jsonl')
  writeFileSync(log, '')
  writeFileSync(join(dir, 'cookies.jsonl'), '')
  writeFileSync(join(dir, 'env.jsonl'), '')
  writeFileSync(join(dir, 'starts.jsonl'), '')
  const path = join(dir, 'yt-dlp')
  const config = { log, version: opts.version ?? '2025.12.08', real: opts.realYtdlp ?? '/usr/bin/yt-dlp', fixture: FIXTURE, counters: dir, urls: opts.urls ?? {}, unsupported: opts.unsupported ?? [] }
  writeFileSync(path, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(import.meta.path)} ${JSON.stringify(JSON.stringify(config))} "$@"\n`)
  chmodSync(path, 0o755)
  return {
    path,
    calls: () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as string[]),
    cookieFiles: () =>
      readFileSync(join(dir, 'cookies.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    environments: () =>
      readFileSync(join(dir, 'env.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    starts: () =>
      readFileSync(join(dir, 'starts.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    botCheck: (on) => (on ? writeFileSync(join(dir, 'bot-check'), '1') : rmSync(join(dir, 'bot-check'), { force: true })),
    mapUrl(from, to) {
      const file = join(dir, 'urls.json')
      let urls: Record<string, string> = {}
      try {
        urls = JSON.parse(readFileSync(file, 'utf8'))
      } catch {}
      writeFileSync(file, JSON.stringify({ ...urls, [from]: to }))
    },
    stop: () => rmSync(dir, { recursive: true, force: true }),
  }
}

const RUNTIME_VERSION: Record<string, RegExp> = { deno: /^deno (\S+)/m, node: /^v(\S+)/m, bun: /^(\d\S*)/m, quickjs: /version\s+(\S+)/m }

/** yt-dlp's `-v` header line for the `--js-runtimes` given (YoutubeDL.py: `name-version`, ` (unsupported)`). */
function jsRuntimesLine(args: string[], unsupported: string[]): string {
  if (!args.includes('--js-runtimes')) return 'none (disabled)'
  const found: string[] = []
  args.forEach((a, i) => {
    if (args[i - 1] !== '--js-runtimes') return
    const [name, path] = [a.slice(0, a.indexOf(':')), a.slice(a.indexOf(':') + 1)]
    let out = ''
    try {
      const ran = Bun.spawnSync([path, name === 'quickjs' ? '--help' : '--version'])
      out = `${ran.stdout.toString()}${ran.stderr.toString()}`
    } catch {
      return
    }
    const version = RUNTIME_VERSION[name]?.exec(out)?.[1]
    if (version) found.push(`${name}-${version}${unsupported.includes(name) ? ' (unsupported)' : ''}`)
  })
  return found.sort().join(', ') || 'none'
}

/** Arguments the 2023 yt-dlp does not know, with how many values each takes. */
const NEWER_OPTIONS: Record<string, number> = { '--no-js-runtimes': 0, '--js-runtimes': 1 }

async function main(configJson: string, args: string[]) {
  const config = JSON.parse(configJson) as { log: string; version: string; real: string; fixture: string; counters: string; urls: Record<string, string>; unsupported: string[] }
  appendFileSync(config.log, `${JSON.stringify(args)}\n`)
  appendFileSync(join(config.counters, 'env.jsonl'), `${JSON.stringify({ args, env: process.env })}\n`)
  if (args.includes('-v') && !args.some((a) => /^[a-z]+:\/\//.test(a))) {
    console.error(`[debug] Command-line config: ${JSON.stringify(args)}`)
    console.error(`[debug] yt-dlp version stable@${config.version} from yt-dlp/yt-dlp [standin]`)
    console.error(`[debug] JS runtimes: ${jsRuntimesLine(args, config.unsupported)}`)
    console.error('yt-dlp: error: You must provide at least one URL.')
    return 2
  }
  appendFileSync(join(config.counters, 'starts.jsonl'), `${JSON.stringify({ at: Date.now(), args })}\n`)
  let later: Record<string, string> = {}
  try {
    later = JSON.parse(readFileSync(join(config.counters, 'urls.json'), 'utf8'))
  } catch {}
  const mapped = later[args.at(-1) ?? ''] ?? config.urls[args.at(-1) ?? '']
  if (mapped) args[args.length - 1] = mapped
  const cookies = args.indexOf('--cookies')
  if (cookies >= 0) {
    const path = args[cookies + 1]!
    const record = { path, mode: statSync(path).mode & 0o777, text: readFileSync(path, 'utf8') }
    appendFileSync(join(config.counters, 'cookies.jsonl'), `${JSON.stringify(record)}\n`)
  }
  const sleep = /^\/sleep\/(\d+)\/([\w-]+)$/.exec(URL.parse(args.at(-1) ?? '')?.pathname ?? '')
  if (sleep) {
    await Bun.sleep(Number(sleep[1]))
    console.log(JSON.stringify({ id: 'x', title: 'x', uploader: sleep[2] }))
    return 0
  }
  if (args.includes('--version')) {
    console.log(config.version)
    return 0
  }
  const url = args.at(-1) ?? ''
  const path = URL.parse(url)?.pathname ?? ''
  const cases = (JSON.parse(readFileSync(config.fixture, 'utf8')) as { cases: ToolErrorCase[] }).cases
  let botCheck = false
  try {
    botCheck = statSync(join(config.counters, 'bot-check')).isFile()
  } catch {}
  const flaky = /^\/flaky\/(\d+)\/([\w-]+)(\/.*)$/.exec(path)
  let failWith = botCheck ? 'bot-check' : /^\/fail\/([\w-]+)$/.exec(path)?.[1]
  if (flaky) {
    const counter = join(config.counters, `count-${Bun.hash(url)}`)
    let n = 0
    try {
      n = Number(readFileSync(counter, 'utf8'))
    } catch {}
    writeFileSync(counter, String(n + 1))
    if (n < Number(flaky[1])) failWith = flaky[2]
    else args[args.length - 1] = new URL(flaky[3]!, url).toString()
  }
  if (failWith) {
    const found = cases.find((c) => c.id === failWith)
    if (!found) throw new Error(`no fixture case ${failWith}`)
    ;(found.stream === 'stdout' ? process.stdout : process.stderr).write(`${found.text}\n`)
    return found.exit
  }
  const real: string[] = []
  for (let i = 0; i < args.length; i++) {
    const skip = NEWER_OPTIONS[args[i]!]
    if (skip === undefined) real.push(args[i]!)
    else i += skip
  }
  const child = Bun.spawn([config.real, ...real], { stdio: ['inherit', 'inherit', 'inherit'] })
  return await child.exited
}

if (import.meta.main) process.exit(await main(process.argv[2]!, process.argv.slice(3)))
