import { existsSync, statSync } from 'node:fs'
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { embedded } from '../embedded.ts'
import { errorFields, log } from '../lib/logger.ts'
import { runProcess } from '../lib/process.ts'
import { readZipEntry } from '../lib/unzip.ts'
import { DENO_SHA256 } from './deno-pin.ts'
import { fetchRelease } from './release-fetch.ts'

/**
 * The JavaScript runtime yt-dlp solves YouTube's challenges with
 * (YTDLP_JS_RUNTIME; docs/decisions/140-js-runtime-choice.md).
 *
 * `auto` takes the first supported of: Deno on PATH, Deno from the `deno` npm
 * package (its platform package's own binary), the managed Deno under
 * DATA_DIR/tools/deno (fetched from DENO_RELEASE_URL, checksum checked), Node
 * on PATH. Never Bun. `<name>:<path>` is used as given. Whether a runtime is
 * supported follows yt-dlp's published ranges, then yt-dlp's own verdict
 * (ytdlpVerdict), which the toolbox checks at start, after a yt-dlp update and
 * when the runtime changes.
 */
export const JS_RUNTIME_NAMES = ['deno', 'node', 'quickjs', 'bun'] as const
export type JsRuntimeName = (typeof JS_RUNTIME_NAMES)[number]
export type JsRuntimeSource = 'setting' | 'path' | 'package' | 'managed'

export interface JsRuntimeFound {
  name: JsRuntimeName
  path: string
  /** From the runtime's own `--version` (QuickJS: `--help`); null when it did not answer. */
  version: string | null
  source: JsRuntimeSource
  /** Within yt-dlp's published range for its name (the toolbox adds yt-dlp's own verdict). */
  inRange: boolean
}

/** yt-dlp's published ranges (Deno ≥ 2.3, Node ≥ 22, QuickJS ≥ 2023-12-09, Bun 1.2.11-1.3.14). */
export function inSupportedRange(name: JsRuntimeName, version: string | null): boolean {
  if (!version) return false
  const v = numbers(version)
  switch (name) {
    case 'deno':
      return atLeast(v, [2, 3, 0])
    case 'node':
      return atLeast(v, [22, 0, 0])
    case 'quickjs':
      // QuickJS-ng has its own numbering (0.x): yt-dlp takes any of it
      return /^\d{4}-\d{2}-\d{2}$/.test(version) ? atLeast(v, [2023, 12, 9]) : v.length > 0 && !/^\d{4}/.test(version)
    case 'bun':
      return atLeast(v, [1, 2, 11]) && atLeast([1, 3, 14], v)
  }
}

const numbers = (version: string) => (version.match(/\d+/g) ?? []).slice(0, 3).map(Number)
function atLeast(v: number[], floor: number[]) {
  for (let i = 0; i < floor.length; i++) {
    const a = v[i] ?? 0
    if (a !== floor[i]) return a > floor[i]!
  }
  return true
}

/** Extra variables a runtime needs: the compiled binary acts as plain Bun only with BUN_BE_BUN=1. */
export function runtimeEnv(rt: { name: JsRuntimeName; path: string }): Record<string, string> {
  return rt.name === 'bun' && embedded() && rt.path === process.execPath ? { BUN_BE_BUN: '1' } : {}
}

const VERSION_PATTERNS: Record<JsRuntimeName, RegExp> = {
  deno: /^deno (\S+)/m,
  node: /^v(\d\S*)/m,
  bun: /^(\d+\.\d+\S*)/m,
  quickjs: /^QuickJS(?:-ng)?\s+version\s+(\S+)/m,
}
const versions = new Map<string, string | null>()

/** The runtime's version as it states it (remembered per file and its change time). */
export async function runtimeVersion(name: JsRuntimeName, path: string): Promise<string | null> {
  let key: string
  try {
    const st = statSync(path)
    key = `${name}:${path}:${st.size}:${st.mtimeMs}`
  } catch {
    return null
  }
  if (versions.has(key)) return versions.get(key)!
  let version: string | null = null
  try {
    // QuickJS has no --version: its --help starts with the version (and exits 1)
    const result = await runProcess([path, name === 'quickjs' ? '--help' : '--version'], {
      collectStdout: true,
      signal: AbortSignal.timeout(20_000),
      env: runtimeEnv({ name, path }),
    })
    version = VERSION_PATTERNS[name].exec(`${result.stdout}\n${result.stderr}`)?.[1] ?? null
  } catch {
    // not runnable
  }
  versions.set(key, version)
  return version
}

/** The npm platform package carrying Deno's binary for this machine (`@deno/linux-x64-glibc`). */
function denoNpmPlatform(): string | null {
  const arch = process.arch === 'x64' ? 'x64' : process.arch === 'arm64' ? 'arm64' : null
  if (!arch) return null
  if (process.platform === 'linux') return `linux-${arch}-glibc`
  if (process.platform === 'darwin') return `darwin-${arch}`
  return null
}

/**
 * Deno's own binary from the `deno` npm package, resolved as Node resolves
 * the package's platform dependency (not its node wrapper, bin.cjs); null in
 * the compiled binary (no node_modules) or when it is not installed.
 * `from` is the file resolution starts at (tests point it elsewhere).
 */
export function denoFromPackage(from: string = import.meta.path): string | null {
  const platform = denoNpmPlatform()
  if (embedded() || !platform) return null
  try {
    const denoPkg = createRequire(from).resolve('deno/package.json')
    const platformPkg = createRequire(denoPkg).resolve(`@deno/${platform}/package.json`)
    const bin = join(dirname(platformPkg), 'deno')
    return existsSync(bin) ? bin : null
  } catch {
    return null
  }
}

/** Deno's release target for this machine (`x86_64-unknown-linux-gnu`), or null where it publishes none. */
export function denoTarget(): string | null {
  const arch = process.arch === 'x64' ? 'x86_64' : process.arch === 'arm64' ? 'aarch64' : null
  if (!arch) return null
  if (process.platform === 'linux') return `${arch}-unknown-linux-gnu`
  if (process.platform === 'darwin') return `${arch}-apple-darwin`
  return null
}

const MAX_ZIP_BYTES = 200 * 1024 * 1024
const MAX_BINARY_BYTES = 500 * 1024 * 1024

interface ManagedDenoState {
  current: { version: string; sha256: string; target: string } | null
  fetchedAt: string | null
  lastError: string | null
}

/**
 * The Deno the app fetches for itself (what the single-file binary uses):
 *
 *   DATA_DIR/tools/deno/state.json         the build in use, when it was fetched, the last error
 *   DATA_DIR/tools/deno/builds/<sha256>/deno  the binary, from the release zip of that SHA-256
 *
 * `<DENO_RELEASE_URL>/deno-<target>.zip` is used only when its SHA-256 is the
 * pinned one (src/tools/deno-pin.ts, or DENO_SHA256) and equals the one in
 * `<...>.zip.sha256sum`, both fetched with fetchRelease (HTTPS only, loopback
 * excepted; redirects only to the release's hosts), and the unpacked binary
 * answers `--version`. A build on disk of another hash (fetched before the pin
 * changed) is not run. Folders and the binary are 0700.
 */
export class ManagedDeno {
  readonly dir: string
  private state: ManagedDenoState = { current: null, fetchedAt: null, lastError: null }
  private fetching: Promise<{ path: string; version: string }> | null = null

  /** The SHA-256 the zip must have: DENO_SHA256, else the pinned one for this machine (null: none pinned). */
  readonly sha256: string | null

  constructor(
    dataDir: string,
    readonly releaseUrl: string,
    sha256?: string | null,
  ) {
    this.dir = join(dataDir, 'tools', 'deno')
    const target = denoTarget()
    this.sha256 = sha256 ?? (target ? (DENO_SHA256[target] ?? null) : null)
  }

  binPath(sha256: string) {
    return join(this.dir, 'builds', sha256, 'deno')
  }

  get lastError() {
    return this.state.lastError
  }

  /** The copy already on disk, or null. */
  async installed(): Promise<{ path: string; version: string } | null> {
    try {
      this.state = { ...this.state, ...(JSON.parse(await readFile(join(this.dir, 'state.json'), 'utf8')) as ManagedDenoState) }
    } catch {
      return null
    }
    const current = this.state.current
    if (!current || !existsSync(this.binPath(current.sha256))) return null
    // a build of another hash than the pinned one is never run (it is replaced by the next fetch)
    if (current.sha256 !== this.sha256) return null
    return { path: this.binPath(current.sha256), version: current.version }
  }

  /** Fetches, checks and unpacks the release (one fetch at a time); throws with the reason, also kept in lastError. */
  fetch(): Promise<{ path: string; version: string }> {
    this.fetching ??= this.runFetch().finally(() => (this.fetching = null))
    return this.fetching
  }

  private async runFetch(): Promise<{ path: string; version: string }> {
    try {
      const target = denoTarget()
      if (!target) throw new Error(`Deno publishes no build for ${process.platform}-${process.arch}`)
      if (!this.sha256) throw new Error(`no SHA-256 is pinned for Deno's ${target} build: set DENO_SHA256`)
      const base = this.releaseUrl.replace(/\/+$/, '')
      const asset = `deno-${target}.zip`
      const opts = { releaseUrl: base }
      const sums = new TextDecoder().decode(await fetchRelease(`${base}/${asset}.sha256sum`, { ...opts, max: 64 * 1024 }))
      const expected = /\b([0-9a-f]{64})\b/i.exec(sums)?.[1]?.toLowerCase()
      if (!expected) throw new Error(`${asset}.sha256sum holds no SHA-256`)
      const zip = await fetchRelease(`${base}/${asset}`, { ...opts, max: MAX_ZIP_BYTES })
      const actual = new Bun.CryptoHasher('sha256').update(zip).digest('hex')
      if (actual !== this.sha256) {
        throw new Error(`${asset} is not the pinned build: its SHA-256 is ${actual}, the pinned one (DENO_SHA256) ${this.sha256}; it is not run`)
      }
      if (actual !== expected) throw new Error(`checksum mismatch for ${asset}: its .sha256sum says ${expected}, the download is ${actual}`)
      const binary = readZipEntry(zip, 'deno', MAX_BINARY_BYTES)

      const builds = join(this.dir, 'builds')
      await mkdirPrivate(builds)
      const staging = join(builds, `${actual}.tmp-${crypto.randomUUID()}`)
      await mkdirPrivate(staging)
      try {
        await writeFile(join(staging, 'deno'), binary, { mode: 0o700 })
        await chmod(join(staging, 'deno'), 0o700)
        const version = await runtimeVersion('deno', join(staging, 'deno'))
        if (!version) throw new Error(`the Deno from ${asset} does not run here (--version gave no answer)`)
        await rm(join(builds, actual), { recursive: true, force: true })
        await rename(staging, join(builds, actual))
        this.state = { current: { version, sha256: actual, target }, fetchedAt: new Date().toISOString(), lastError: null }
        await this.save()
        log.info('managed Deno fetched', { version, target })
        return { path: this.binPath(actual), version }
      } catch (err) {
        await rm(staging, { recursive: true, force: true })
        throw err
      }
    } catch (err) {
      this.state.lastError = err instanceof Error ? err.message : String(err)
      await this.save().catch(() => {})
      log.warn('managed Deno could not be fetched', errorFields(err))
      throw err
    }
  }

  private async save() {
    await mkdirPrivate(this.dir)
    const tmp = join(this.dir, `state.json.${process.pid}.tmp`)
    await writeFile(tmp, JSON.stringify(this.state, null, 2), { mode: 0o600 })
    await rename(tmp, join(this.dir, 'state.json'))
  }
}

async function mkdirPrivate(dir: string) {
  await mkdir(dir, { recursive: true, mode: 0o700 })
  await chmod(dir, 0o700)
}

/**
 * YTDLP_JS_RUNTIME as a runtime: `<name>:<path>` as given (a bare name is
 * looked up on PATH for its version; yt-dlp gets it as written), or `auto`'s
 * first supported candidate. With none supported, the first one found is
 * returned as unsupported (so the admin page can say what is there), or null.
 */
export async function chooseJsRuntime(opts: {
  setting: string
  searchPath: string
  managed: ManagedDeno | null
  /** Where the `deno` package is resolved from; null: not at all. */
  packageFrom?: string | null
}): Promise<JsRuntimeFound | null> {
  if (opts.setting !== 'auto') {
    const colon = opts.setting.indexOf(':')
    const name = opts.setting.slice(0, colon) as JsRuntimeName
    const path = opts.setting.slice(colon + 1)
    const runnable = path.includes('/') ? path : (Bun.which(path, { PATH: opts.searchPath }) ?? path)
    const version = await runtimeVersion(name, runnable)
    return { name, path, version, source: 'setting', inRange: inSupportedRange(name, version) }
  }
  const seen: JsRuntimeFound[] = []
  const consider = async (name: JsRuntimeName, path: string | null, source: JsRuntimeSource) => {
    if (!path) return null
    const version = await runtimeVersion(name, path)
    const found = { name, path, version, source, inRange: inSupportedRange(name, version) }
    seen.push(found)
    return found.inRange ? found : null
  }
  const onPath = (name: string) => Bun.which(name, { PATH: opts.searchPath })

  const found =
    (await consider('deno', onPath('deno'), 'path')) ??
    (await consider('deno', opts.packageFrom === null ? null : denoFromPackage(opts.packageFrom), 'package')) ??
    (await managedDeno(opts.managed, consider)) ??
    (await consider('node', onPath('node'), 'path'))
  return found ?? seen[0] ?? null
}

/** The managed copy on disk if supported, else a fresh fetch (failures logged, not thrown). */
async function managedDeno(
  managed: ManagedDeno | null,
  consider: (name: JsRuntimeName, path: string | null, source: JsRuntimeSource) => Promise<JsRuntimeFound | null>,
): Promise<JsRuntimeFound | null> {
  if (!managed) return null
  const onDisk = await managed.installed()
  const kept = onDisk && (await consider('deno', onDisk.path, 'managed'))
  if (kept) return kept
  try {
    return await consider('deno', (await managed.fetch()).path, 'managed')
  } catch {
    return null
  }
}

/** yt-dlp learnt `--js-runtimes` in 2025.11 (older ones refuse it, and have no verdict to give). */
export const JS_RUNTIME_SINCE = '2025.11.00'

export type Verdict = 'supported' | 'unsupported' | 'unknown'

/**
 * yt-dlp's own verdict on a runtime: the `[debug] JS runtimes:` line of
 * `yt-dlp -v --no-js-runtimes --js-runtimes <name>:<path>` (with no URL it
 * prints its debug header, then stops). `deno-2.9.6` is supported;
 * `node-20.20.2 (unsupported)` is not; a runtime missing from the line (or
 * `none`) is one yt-dlp could not run. No such line: an older yt-dlp, unknown.
 */
export function parseVerdict(output: string, name: JsRuntimeName): Verdict {
  const line = /\[debug\] JS runtimes: (.*)$/m.exec(output)?.[1]?.trim()
  if (line === undefined) return 'unknown'
  const prefix = name === 'quickjs' ? /^quickjs(?:-ng)?-/ : new RegExp(`^${name}-`)
  const entry = line.split(/,\s*/).find((e) => prefix.test(e))
  if (!entry) return 'unsupported'
  return /\(unsupported\)/.test(entry) ? 'unsupported' : 'supported'
}

/** Runs yt-dlp's debug header for `runtime`; 'unknown' for a yt-dlp before --js-runtimes or one that does not answer. */
export async function ytdlpVerdict(
  ytdlp: { path: string; version: string | null } | null,
  runtime: { name: JsRuntimeName; path: string },
  env: Record<string, string> = {},
): Promise<Verdict> {
  if (!ytdlp?.version || ytdlp.version < JS_RUNTIME_SINCE) return 'unknown'
  try {
    const result = await runProcess([ytdlp.path, '-v', '--ignore-config', '--no-js-runtimes', '--js-runtimes', `${runtime.name}:${runtime.path}`], {
      collectStdout: true,
      signal: AbortSignal.timeout(60_000),
      env: { ...env, ...runtimeEnv(runtime) },
    })
    return parseVerdict(`${result.stderr}\n${result.stdout}`, runtime.name)
  } catch (err) {
    log.warn('yt-dlp gave no verdict on the JavaScript runtime', errorFields(err))
    return 'unknown'
  }
}

/** Links yt-dlp needs a JavaScript runtime for: YouTube's (its challenges). */
export function needsJsRuntime(url: string): boolean {
  const host = URL.parse(url)?.hostname.toLowerCase() ?? ''
  return /(^|\.)(youtube\.com|youtu\.be|youtube-nocookie\.com)$/.test(host)
}
