import { existsSync } from 'node:fs'
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { errorFields, log } from '../lib/logger.ts'
import { runProcess } from '../lib/process.ts'
import { fetchRelease } from './release-fetch.ts'
import { releaseKey, verifyDetached } from './signing-key.ts'
import type { Toolbox, YtdlpInUse } from './toolbox.ts'

/**
 * The yt-dlp the app keeps current under DATA_DIR/tools/yt-dlp
 * (docs/decisions/052-managed-ytdlp.md):
 *
 *   state.json            current and previous build, last check, last error
 *   builds/<sha256>/yt-dlp one folder per build, never changed once written
 *
 * An update fetches the release's SHA2-256SUMS and SHA2-256SUMS.sig from
 * YTDLP_RELEASE_URL (HTTPS only, loopback excepted; redirects only to the
 * release's download hosts: src/tools/release-fetch.ts), verifies the
 * signature against the pinned key or YTDLP_SIGNING_KEY
 * (docs/decisions/150-signed-ytdlp-releases.md), then fetches the asset for
 * this machine, checks it against the signed sums, runs it (`--version`, then
 * a metadata extraction of a local file) and only then makes it current, once
 * no yt-dlp call is running; the build before stays for rollback. Any failure
 * keeps the current build and is recorded in `lastError`. Everything under
 * DATA_DIR/tools/yt-dlp is private: folders and builds 0700, state 0600.
 */
export interface Build {
  version: string
  sha256: string
  /** The release asset it came from (`yt-dlp`, `yt-dlp_linux`, ...), or `seed` for the copy made from PATH. */
  asset: string
}

export interface ManagedState {
  current: Build | null
  previous: Build | null
  checkedAt: string | null
  updatedAt: string | null
  lastError: string | null
  /** A build the admin rolled back from: checks do not install it again. */
  rejected: string | null
  /** When a job's failure last started a check (at most one an hour: USER_CHECK_EVERY_MS). */
  userCheckAt?: string | null
}

/** Who asked for a check: the admin (route, CLI), the schedule (daily, at start) or a user's failing job (throttled). */
export type UpdateTrigger = 'admin' | 'schedule' | 'user'
/** A user's failing job starts at most one check in this time, across restarts (docs/decisions/151-user-triggered-update-checks.md). */
export const USER_CHECK_EVERY_MS = 60 * 60 * 1000

const RELEASES: Record<'stable' | 'nightly', string> = {
  stable: 'https://github.com/yt-dlp/yt-dlp/releases/latest/download',
  nightly: 'https://github.com/yt-dlp/yt-dlp-nightly-builds/releases/latest/download',
}
const MAX_ASSET_BYTES = 200 * 1024 * 1024
const FETCH_TIMEOUT_MS = 5 * 60 * 1000
const SELF_TEST_TIMEOUT_MS = 60_000

export type UpdateOutcome = 'updated' | 'current' | 'failed' | 'off' | 'throttled'

export class ManagedYtdlp {
  readonly dir: string
  private state: ManagedState = { current: null, previous: null, checkedAt: null, updatedAt: null, lastError: null, rejected: null }
  private checking: Promise<UpdateOutcome> | null = null
  /** Called after a new build became current (the canary runs on it: src/tools/canary.ts). */
  onUpdated: ((build: Build, previous: Build | null) => Promise<void> | void) | null = null

  constructor(private readonly tools: Toolbox) {
    this.dir = join(tools.env.DATA_DIR, 'tools', 'yt-dlp')
  }

  get channel() {
    return this.tools.env.YTDLP_UPDATE
  }

  /** Off when YTDLP_PATH is set or the channel is `off`: then the yt-dlp on PATH runs. */
  get enabled() {
    return !this.tools.env.YTDLP_PATH && this.channel !== 'off'
  }

  get releaseUrl() {
    const channel = this.channel === 'off' ? 'stable' : this.channel
    return (this.tools.env.YTDLP_RELEASE_URL ?? RELEASES[channel]).replace(/\/+$/, '')
  }

  /** True while a check runs. */
  get busy() {
    return this.checking !== null
  }

  snapshot(): ManagedState {
    return structuredClone(this.state)
  }

  buildPath(build: Build) {
    return join(this.dir, 'builds', build.sha256, 'yt-dlp')
  }

  /** The managed build in use, for the toolbox; null when off or none yet. */
  inUse(): YtdlpInUse | null {
    const current = this.state.current
    if (!this.enabled || !current) return null
    return { path: this.buildPath(current), version: current.version, source: 'managed' }
  }

  /**
   * Reads the state; with no build yet, the yt-dlp on PATH (the Docker image's pinned
   * one) becomes the first, so the app runs at once and updates from there.
   */
  async load() {
    this.state = { ...this.state, ...(await this.readState()) }
    await this.makePrivate()
    if (this.state.current && !existsSync(this.buildPath(this.state.current))) this.state.current = null
    if (!this.enabled || this.state.current) return
    const onPath = Bun.which('yt-dlp', { PATH: this.tools.env.PATH })
    if (!onPath) return
    try {
      const bytes = await readFile(onPath)
      const build = await this.install(new Uint8Array(bytes), 'seed')
      this.state.current = build
      this.state.updatedAt = new Date().toISOString()
      await this.save()
      log.info('managed yt-dlp seeded from PATH', { version: build.version })
    } catch (err) {
      log.warn('managed yt-dlp could not be seeded from PATH', errorFields(err))
    }
  }

  private async readState(): Promise<Partial<ManagedState>> {
    try {
      return JSON.parse(await readFile(join(this.dir, 'state.json'), 'utf8')) as ManagedState
    } catch {
      return {} // first start
    }
  }

  /**
   * Checks the channel's release now (one check at a time); the outcome is
   * also in the state. A check a user's job asks for (`user`) runs at most
   * once an hour, counted in the saved state so a restart does not reset it;
   * the admin's and the schedule's always run.
   */
  async update(trigger: UpdateTrigger = 'schedule'): Promise<UpdateOutcome> {
    if (this.checking) return this.checking
    if (trigger === 'user' && this.enabled) {
      // another process (or this one before a restart) may have started one: the saved time counts too
      const saved = (await this.readState()).userCheckAt ?? null
      const last = Math.max(Date.parse(this.state.userCheckAt ?? '') || 0, Date.parse(saved ?? '') || 0)
      if (Date.now() - last < USER_CHECK_EVERY_MS) return 'throttled'
      if (this.checking) return this.checking
      this.state.userCheckAt = new Date().toISOString()
    }
    this.checking ??= this.runUpdate().finally(() => (this.checking = null))
    return this.checking
  }

  private async runUpdate(): Promise<UpdateOutcome> {
    if (!this.enabled) return 'off'
    this.state.checkedAt = new Date().toISOString()
    try {
      const asset = await this.assetName()
      // the signature first: nothing of a release whose sums the release key did not sign is used
      const sums = await this.fetchBytes(`${this.releaseUrl}/SHA2-256SUMS`, 1024 * 1024)
      const sig = await this.fetchBytes(`${this.releaseUrl}/SHA2-256SUMS.sig`, 64 * 1024).catch((err: unknown) => {
        throw new Error(`SHA2-256SUMS.sig could not be fetched (${err instanceof Error ? err.message : String(err)}): without its signature the release is not used.`)
      })
      // the key (and the OpenPGP library, 13 MB resident) only once there is something to check:
      // a check that cannot reach the release host costs no memory (docs/decisions/311)
      const key = await releaseKey(this.tools.env.YTDLP_SIGNING_KEY)
      await verifyDetached(sums, sig, key)
      const expected = parseSums(new TextDecoder().decode(sums)).get(asset)
      if (!expected) throw new Error(`SHA2-256SUMS lists no ${asset}`)
      if (expected === this.state.current?.sha256 || expected === this.state.rejected) {
        this.state.lastError = null
        await this.save()
        return 'current'
      }
      const bytes = await this.fetchBytes(`${this.releaseUrl}/${asset}`, MAX_ASSET_BYTES)
      const actual = new Bun.CryptoHasher('sha256').update(bytes).digest('hex')
      if (actual !== expected) throw new Error(`checksum mismatch for ${asset}: SHA2-256SUMS says ${expected}, the download is ${actual}`)
      const build = await this.install(bytes, asset)
      await this.switchTo(build)
      this.state.lastError = null
      await this.save()
      log.info('managed yt-dlp updated', { version: build.version, asset })
      try {
        await this.onUpdated?.(build, this.state.previous)
      } catch (err) {
        log.warn('after-update hook failed', errorFields(err))
      }
      return 'updated'
    } catch (err) {
      this.state.lastError = err instanceof Error ? err.message : String(err)
      await this.save()
      // one line (offline this repeats): what happened, no stack
      log.warn('managed yt-dlp update failed; the current build stays', { error: this.state.lastError })
      return 'failed'
    }
  }

  /** Records why something about the managed yt-dlp went wrong (`tools.ytDlp.lastError`), e.g. a canary rollback. */
  async noteError(message: string) {
    this.state.lastError = message
    await this.save()
  }

  /** The previous build, when its file is still there (for the canary and rollback). */
  previousInUse(): YtdlpInUse | null {
    const previous = this.state.previous
    if (!this.enabled || !previous || !existsSync(this.buildPath(previous))) return null
    return { path: this.buildPath(previous), version: previous.version, source: 'managed' }
  }

  /** The previous build becomes current again; false when there is none. */
  async rollback(): Promise<Build | null> {
    const { current, previous } = this.state
    if (!previous || !existsSync(this.buildPath(previous))) return null
    await this.tools.idle()
    this.state = { ...this.state, current: previous, previous: current, rejected: current?.sha256 ?? null, updatedAt: new Date().toISOString(), lastError: null }
    await this.save()
    await this.tools.refreshYtdlp()
    return previous
  }

  /** Writes the build into its own folder, then self-tests it there. */
  private async install(bytes: Uint8Array, asset: string): Promise<Build> {
    const sha256 = new Bun.CryptoHasher('sha256').update(bytes).digest('hex')
    const folder = join(this.dir, 'builds', sha256)
    const staging = `${folder}.tmp-${crypto.randomUUID()}`
    await this.privateDir(staging)
    try {
      await writeFile(join(staging, 'yt-dlp'), bytes, { mode: 0o700 })
      await chmod(join(staging, 'yt-dlp'), 0o700)
      const version = await selfTest(join(staging, 'yt-dlp'), staging)
      await rm(folder, { recursive: true, force: true })
      await rename(staging, folder)
      return { version, sha256, asset }
    } catch (err) {
      await rm(staging, { recursive: true, force: true })
      throw err
    }
  }

  /** Makes `build` current once no yt-dlp call runs; keeps the one before; removes older builds. */
  private async switchTo(build: Build) {
    await this.tools.idle()
    const old = this.state.current
    this.state.previous = old && old.sha256 !== build.sha256 ? old : this.state.previous
    this.state.current = build
    this.state.rejected = null
    this.state.updatedAt = new Date().toISOString()
    // the previous failure ends with the switch, not after the runtime checks that follow it
    this.state.lastError = null
    await this.save()
    await this.tools.refreshYtdlp()
    const keep = new Set([build.sha256, this.state.previous?.sha256])
    for (const name of await readdir(join(this.dir, 'builds')).catch(() => [] as string[])) {
      if (!keep.has(name) && !name.includes('.tmp-')) await rm(join(this.dir, 'builds', name), { recursive: true, force: true })
    }
  }

  private async save() {
    await this.privateDir(this.dir)
    const tmp = join(this.dir, `state.json.${process.pid}.tmp`)
    await writeFile(tmp, JSON.stringify(this.state, null, 2), { mode: 0o600 })
    await chmod(tmp, 0o600)
    await rename(tmp, join(this.dir, 'state.json'))
  }

  /** `path` and the folders up to DATA_DIR/tools, made if missing, 0700. */
  private async privateDir(path: string) {
    await mkdir(path, { recursive: true, mode: 0o700 })
    const top = dirname(this.dir)
    for (let p = path; p.startsWith(top) && p.length >= top.length; p = dirname(p)) await chmod(p, 0o700)
  }

  /** Earlier versions wrote builds 0755: DATA_DIR/tools/yt-dlp becomes private (folders and builds 0700, state 0600). */
  private async makePrivate() {
    if (!existsSync(this.dir)) return
    await this.privateDir(this.dir)
    await chmod(join(this.dir, 'state.json'), 0o600).catch(() => {})
    const builds = join(this.dir, 'builds')
    for (const name of await readdir(builds).catch(() => [] as string[])) {
      await chmod(join(builds, name), 0o700).catch(() => {})
      await chmod(join(builds, name, 'yt-dlp'), 0o700).catch(() => {})
    }
    await chmod(builds, 0o700).catch(() => {})
  }

  /** The zipapp where python3 ≥ 3.10 runs it (small, any CPU); else the standalone Linux build. */
  private async assetName(): Promise<string> {
    const python = Bun.which('python3', { PATH: this.tools.env.PATH })
    if (python) {
      const result = await runProcess([python, '-c', 'import sys; print(sys.version_info >= (3, 10))'], {
        collectStdout: true,
        signal: AbortSignal.timeout(10_000),
      }).catch(() => null)
      if (result?.stdout.trim() === 'True') return 'yt-dlp'
    }
    return process.arch === 'arm64' ? 'yt-dlp_linux_aarch64' : 'yt-dlp_linux'
  }

  /** HTTPS only (loopback excepted), redirects only to the release's download hosts. */
  private fetchBytes(url: string, max: number): Promise<Uint8Array> {
    return fetchRelease(url, { releaseUrl: this.releaseUrl, max, timeoutMs: FETCH_TIMEOUT_MS })
  }
}

/** `<sha256>  <name>` lines (sha256sum's format, as yt-dlp publishes them). */
export function parseSums(text: string): Map<string, string> {
  const sums = new Map<string, string>()
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]{64})\s+\*?(\S+)\s*$/i.exec(line.trim())
    if (m) sums.set(m[2]!, m[1]!.toLowerCase())
  }
  return sums
}

/**
 * A build is good when `--version` answers a version and it extracts the
 * metadata of a local WAV file (made here: no network, no ffmpeg).
 */
export async function selfTest(path: string, workDir: string): Promise<string> {
  const signal = AbortSignal.timeout(SELF_TEST_TIMEOUT_MS)
  const sample = join(workDir, 'self-test.wav')
  await writeFile(sample, silentWav())
  try {
    // both runs at once (each starts Python: most of a first start's wait, docs/decisions/311)
    const [version, info] = await Promise.all([
      runProcess([path, '--version'], { collectStdout: true, signal }),
      runProcess([path, '--ignore-config', '--no-cache-dir', '--enable-file-urls', '-J', '--skip-download', `file://${sample}`], {
        collectStdout: true,
        signal,
      }),
    ])
    const name = version.stdout.trim().split('\n')[0]?.trim() ?? ''
    if (version.code !== 0 || !/^\d{4}\.\d{2}\.\d{2}/.test(name)) throw new Error(`self-test failed: --version answered ${JSON.stringify(name || version.stderr.trim().slice(-200))}`)
    let parsed: { ext?: string } | null = null
    try {
      parsed = JSON.parse(info.stdout) as { ext?: string }
    } catch {}
    if (info.code !== 0 || parsed?.ext !== 'wav') throw new Error(`self-test failed: metadata extraction exited ${info.code}: ${info.stderr.trim().slice(-300)}`)
    return name
  } finally {
    await rm(sample, { force: true })
  }
}

/** One second of 8 kHz mono silence. */
export function silentWav(): Uint8Array {
  const samples = 8000
  const buf = Buffer.alloc(44 + samples * 2)
  buf.write('RIFF', 0)
  buf.writeUInt32LE(36 + samples * 2, 4)
  buf.write('WAVEfmt ', 8)
  buf.writeUInt32LE(16, 16)
  buf.writeUInt16LE(1, 20)
  buf.writeUInt16LE(1, 22)
  buf.writeUInt32LE(8000, 24)
  buf.writeUInt32LE(16000, 28)
  buf.writeUInt16LE(2, 32)
  buf.writeUInt16LE(16, 34)
  buf.write('data', 36)
  buf.writeUInt32LE(samples * 2, 40)
  return buf
}
