import { createHash } from 'node:crypto'
import { chmod, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Env } from '../env.ts'
import { errorFields, log } from '../lib/logger.ts'
import { fetchRelease } from './release-fetch.ts'
import { readZip, safeEntry } from './zip.ts'

/**
 * The PO-token provider (YTDLP_POT_PROVIDER_URL, bgutil-ytdlp-pot-provider's
 * HTTP server) and its yt-dlp plugin (docs/decisions/148-po-token-provider.md):
 * - the plugin zip of the pinned release (or YTDLP_POT_PLUGIN_URL) is fetched
 *   through fetchRelease (HTTPS only, loopback excepted; redirects kept to the
 *   release's hosts), checked against the SHA-256 pinned here (or
 *   YTDLP_POT_PLUGIN_SHA256) and unpacked under
 *   DATA_DIR/tools/pot-plugin/<sha256>/bgutil-ytdlp-pot-provider/ (0700 folders,
 *   0600 files); nothing unchecked is ever unpacked;
 * - every yt-dlp call then gets `--plugin-dirs DATA_DIR/tools/pot-plugin/<sha256>`
 *   and `--extractor-args youtubepot-bgutilhttp:base_url=<url>` (src/tools/ytdlp.ts);
 * - the provider's `GET <url>/ping` (`{server_uptime, version}`) is asked at
 *   start, every 5 minutes and when the admin status is read (at most every 5 s):
 *   `tools.potProvider` of GET /api/admin/status.
 */
export const POT_PLUGIN_VERSION = '1.3.1'
export const POT_PLUGIN_URL = `https://github.com/Brainicism/bgutil-ytdlp-pot-provider/releases/download/${POT_PLUGIN_VERSION}/bgutil-ytdlp-pot-provider.zip`
/** SHA-256 of that release's bgutil-ytdlp-pot-provider.zip (8,067 bytes). */
export const POT_PLUGIN_SHA256 = 'b8ceec7f76143da172aaf5ebeec0c2d218e5680c063b931586bca48567069b38'
/** The file that makes the archive the HTTP provider's plugin (yt-dlp loads `yt_dlp_plugins/` packages). */
export const POT_PLUGIN_ENTRY = 'yt_dlp_plugins/extractor/getpot_bgutil_http.py'
const PACKAGE = 'bgutil-ytdlp-pot-provider'
const MAX_PLUGIN_BYTES = 5 * 1024 * 1024
const CHECK_EVERY_MS = 5 * 60 * 1000
const STALE_MS = 5_000
const PING_TIMEOUT_MS = 5_000
const START_WAIT_MS = 10_000

/** `tools.potProvider` (docs/api.md): what the provider's `/ping` said. */
export interface PotProviderStatus {
  url: string
  ok: boolean
  version: string | null
  checkedAt: string | null
  lastError: string | null
}

/** `tools.potPlugin`: the plugin yt-dlp is handed, once fetched and checked. */
export interface PotPluginStatus {
  version: string | null
  sha256: string
  installed: boolean
  error: string | null
}

export class PotProvider {
  readonly url: string | null
  private pluginDir: string | null = null
  private pluginError: string | null = null
  private ping: { ok: boolean; version: string | null; checkedAt: Date | null; error: string | null } = { ok: false, version: null, checkedAt: null, error: null }
  private pinging: Promise<void> | null = null
  private installing: Promise<void> | null = null
  private timer: ReturnType<typeof setInterval> | null = null

  constructor(private readonly env: Pick<Env, 'DATA_DIR' | 'YTDLP_POT_PROVIDER_URL' | 'YTDLP_POT_PLUGIN_URL' | 'YTDLP_POT_PLUGIN_SHA256'>) {
    this.url = env.YTDLP_POT_PROVIDER_URL ? env.YTDLP_POT_PROVIDER_URL.replace(/\/+$/, '') : null
  }

  get enabled() {
    return this.url !== null
  }

  private get sha256() {
    return this.env.YTDLP_POT_PLUGIN_SHA256 ?? POT_PLUGIN_SHA256
  }

  /**
   * At tools start: the plugin installed (or its failure recorded) and the provider asked, then
   * both again every 5 minutes. Tools start waits at most 10 s for this (a release host that does
   * not answer must not hold every download back); the install goes on meanwhile.
   */
  async start() {
    if (!this.enabled) return
    await Promise.race([Promise.all([this.install(), this.check()]), Bun.sleep(START_WAIT_MS)])
    this.timer ??= setInterval(() => void Promise.all([this.install(), this.check()]), CHECK_EVERY_MS)
    this.timer.unref?.()
  }

  stop() {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }

  /** What yt-dlp gets: the plugin folder and the provider's URL, once the plugin is in place. */
  forYtdlp(): { pluginDir: string; baseUrl: string } | null {
    return this.url && this.pluginDir ? { pluginDir: this.pluginDir, baseUrl: this.url } : null
  }

  /** Fetches, checks and unpacks the plugin unless it is already there. Never throws: the failure is recorded. */
  install(): Promise<void> {
    if (!this.enabled || this.pluginDir) return Promise.resolve()
    this.installing ??= this.installOnce()
      .then((dir) => {
        this.pluginDir = dir
        this.pluginError = null
      })
      .catch((err: unknown) => {
        this.pluginError = err instanceof Error ? err.message : String(err)
        log.warn('po-token plugin not installed', errorFields(err))
      })
      .finally(() => {
        this.installing = null
      })
    return this.installing
  }

  private async installOnce(): Promise<string> {
    const sha = this.sha256
    const root = join(this.env.DATA_DIR, 'tools', 'pot-plugin')
    const dir = join(root, sha)
    if (await exists(join(dir, PACKAGE, POT_PLUGIN_ENTRY))) return dir
    const source = this.env.YTDLP_POT_PLUGIN_URL ?? POT_PLUGIN_URL
    const bytes = await fetchRelease(source, { releaseUrl: source, max: MAX_PLUGIN_BYTES, timeoutMs: 60_000 })
    const actual = createHash('sha256').update(bytes).digest('hex')
    if (actual !== sha) throw new Error(`The plugin from ${source} does not match its SHA-256 (expected ${sha}, got ${actual}).`)
    const entries = readZip(bytes, { maxBytes: 20 * MAX_PLUGIN_BYTES })
    const bad = entries.find((e) => !safeEntry(e) || !e.name.startsWith('yt_dlp_plugins/'))
    if (bad) throw new Error(`The plugin archive holds an unexpected entry: ${bad.name}`)
    if (!entries.some((e) => e.name === POT_PLUGIN_ENTRY)) throw new Error(`The plugin archive has no ${POT_PLUGIN_ENTRY}.`)
    // unpacked beside, then moved in place: a half-written plugin is never handed to yt-dlp
    await mkdir(root, { recursive: true, mode: 0o700 })
    await chmod(join(this.env.DATA_DIR, 'tools'), 0o700).catch(() => {})
    await chmod(root, 0o700)
    const staging = join(root, `.staging-${crypto.randomUUID()}`)
    try {
      for (const entry of entries) {
        const path = join(staging, PACKAGE, entry.name)
        if (entry.directory) {
          await mkdir(path, { recursive: true, mode: 0o700 })
          continue
        }
        await mkdir(dirname(path), { recursive: true, mode: 0o700 })
        await writeFile(path, entry.data, { mode: 0o600 })
        await chmod(path, 0o600)
      }
      await rm(dir, { recursive: true, force: true })
      await rename(staging, dir)
      await chmod(dir, 0o700)
    } finally {
      await rm(staging, { recursive: true, force: true })
    }
    log.info('po-token plugin installed', { source, sha256: sha, dir })
    return dir
  }

  /** Asks `GET <url>/ping` (deduplicated while one is under way). */
  check(): Promise<void> {
    if (!this.url) return Promise.resolve()
    this.pinging ??= this.pingOnce().finally(() => {
      this.pinging = null
    })
    return this.pinging
  }

  /** For the admin status: a fresh answer unless the last is a few seconds old. */
  async refresh() {
    if (!this.url) return
    const at = this.ping.checkedAt?.getTime() ?? 0
    if (Date.now() - at > STALE_MS) await this.check()
    // a plugin that could not be fetched is tried again when an admin looks
    if (!this.pluginDir && !this.installing) void this.install()
  }

  private async pingOnce() {
    const checkedAt = new Date()
    try {
      // the operator's own setting (like DATABASE_URL), usually a loopback or private address: no outbound guard,
      // but no redirects either
      const res = await fetch(`${this.url}/ping`, { redirect: 'manual', signal: AbortSignal.timeout(PING_TIMEOUT_MS), headers: { accept: 'application/json' } })
      const text = (await res.text()).slice(0, 4096)
      if (!res.ok) throw new Error(`it answered HTTP ${res.status}`)
      let body: { version?: unknown; server_uptime?: unknown }
      try {
        body = JSON.parse(text)
      } catch {
        throw new Error('its answer is not JSON')
      }
      if (typeof body.version !== 'string' || typeof body.server_uptime !== 'number') throw new Error('its answer has no version and server_uptime')
      this.ping = { ok: true, version: body.version, checkedAt, error: null }
    } catch (err) {
      const reason = err instanceof Error && err.name === 'TimeoutError' ? 'no answer within 5 s' : err instanceof Error ? err.message : String(err)
      this.ping = { ok: false, version: null, checkedAt, error: reason }
    }
  }

  /** `tools.potProvider` of GET /api/admin/status; null when no provider is set. */
  status(): PotProviderStatus | null {
    if (!this.url) return null
    return {
      url: this.url,
      ok: this.ping.ok,
      version: this.ping.version,
      checkedAt: this.ping.checkedAt?.toISOString() ?? null,
      lastError: this.ping.error ? `The PO-token provider at ${this.url} does not answer: ${this.ping.error}.` : null,
    }
  }

  /** `tools.potPlugin` of GET /api/admin/status; null when no provider is set. */
  pluginStatus(): PotPluginStatus | null {
    if (!this.url) return null
    return {
      version: this.env.YTDLP_POT_PLUGIN_URL ? null : POT_PLUGIN_VERSION,
      sha256: this.sha256,
      installed: this.pluginDir !== null,
      error: this.pluginError ? `The PO-token plugin is not installed: ${this.pluginError}` : null,
    }
  }
}

async function exists(path: string) {
  try {
    await stat(path)
    return true
  } catch {
    return false
  }
}
