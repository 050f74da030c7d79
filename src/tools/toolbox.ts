import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Db } from '../db/client.ts'
import type { Env } from '../env.ts'
import { errorFields, log } from '../lib/logger.ts'
import type { Cipher } from '../lib/secret.ts'
import type { AllowList } from '../lib/url-guard.ts'
import { loadCookies } from './cookies.ts'
import { ManagedYtdlp } from './managed.ts'
import { findFfmpeg, type Ffmpeg } from './ffmpeg.ts'
import { chooseJsRuntime, ManagedDeno, runtimeEnv, ytdlpVerdict, type JsRuntimeFound, type Verdict } from './js-runtime.ts'
import { ytdlpVersion, type YtdlpConfig } from './ytdlp.ts'

export type YtdlpSource = 'config' | 'managed' | 'path'

/** The JavaScript runtime yt-dlp gets, with yt-dlp's own verdict on it (src/tools/js-runtime.ts). */
export interface JsRuntimeInUse extends JsRuntimeFound {
  verdict: Verdict
  /** In range and not refused by the yt-dlp in use ('unknown' counts as our range says). */
  supported: boolean
}

export interface YtdlpInUse {
  path: string
  version: string | null
  source: YtdlpSource
}

/**
 * The app's tools, found once at start-up and shared by every feature that
 * runs them (ctx.tools): which ffmpeg and yt-dlp run, the JavaScript runtime
 * yt-dlp gets, the admin's cookies, and leases that keep the managed yt-dlp
 * from being swapped under a running call (src/tools/managed.ts).
 */
export class Toolbox {
  ffmpeg: Ffmpeg | null = null
  ytdlp: YtdlpInUse | null = null
  /** The yt-dlp the app keeps current under DATA_DIR/tools (src/tools/managed.ts). */
  readonly managed: ManagedYtdlp
  /** yt-dlp's JavaScript runtime (YTDLP_JS_RUNTIME); null when none was found. */
  js: JsRuntimeInUse | null = null
  /** The Deno the app fetches when no other is there (DATA_DIR/tools/deno). */
  readonly managedDeno: ManagedDeno
  private leases = 0
  /** Per site (host): link jobs wait until `until` after a bot check; `strikes` doubles the wait. */
  private readonly pauses = new Map<string, { until: number; strikes: number }>()
  private idleWaiters: (() => void)[] = []

  constructor(
    readonly env: Env,
    private readonly deps: { db: Db; cipher: Cipher; allow: AllowList },
  ) {
    this.managed = new ManagedYtdlp(this)
    this.managedDeno = new ManagedDeno(env.DATA_DIR, env.DENO_RELEASE_URL)
  }

  /**
   * Finds ffmpeg and yt-dlp (reading, or seeding, the managed copy's state).
   * The server calls it once it serves (src/server.ts): until it is done,
   * health says the tools are starting and yt-dlp calls wait for it.
   */
  init(): Promise<void> {
    this.found ??= (async () => {
      this.ffmpeg = await findFfmpeg({ configured: this.env.FFMPEG_PATH, searchPath: this.env.PATH })
      await this.managed.load()
      await this.refreshJsRuntime({ check: false })
      await this.refreshYtdlp()
      this.ready = true
    })()
    return this.found
  }
  private found: Promise<void> | null = null
  /** True once init() is done. */
  ready = false

  /**
   * Chooses yt-dlp's JavaScript runtime again (YTDLP_JS_RUNTIME) and, unless
   * `check` is false (init: refreshYtdlp checks next), asks yt-dlp's verdict on it.
   */
  async refreshJsRuntime(opts: { check?: boolean } = {}) {
    const found = await chooseJsRuntime({ setting: this.env.YTDLP_JS_RUNTIME, searchPath: this.env.PATH, managed: this.managedDeno })
    this.js = found && { ...found, verdict: 'unknown', supported: found.inRange }
    if (opts.check !== false) await this.checkJsRuntime()
  }

  /** yt-dlp's own verdict on the runtime in use: at start, after each yt-dlp update and when the runtime changes. */
  async checkJsRuntime() {
    const js = this.js
    if (!js) return
    const env = this.toolEnv()
    await mkdir(env.HOME!, { recursive: true, mode: 0o700 })
    const verdict = await ytdlpVerdict(this.ytdlp, js, env)
    // a newer choice may have replaced it meanwhile
    if (this.js !== js) return
    this.js = { ...js, verdict, supported: js.inRange && verdict !== 'unsupported' }
    const fields = { name: js.name, version: js.version, path: js.path, source: js.source, verdict, ytdlp: this.ytdlp?.version ?? null }
    if (this.js.supported) log.info('JavaScript runtime for yt-dlp', fields)
    else log.warn('no supported JavaScript runtime for yt-dlp: YouTube downloads will fail', fields)
  }

  /** The variables yt-dlp and its runtime get on top of the minimal environment (src/lib/process.ts toolEnv). */
  private toolEnv(): Record<string, string> {
    const tmp = join(this.env.DATA_DIR, 'tmp')
    return { PATH: this.env.PATH, HOME: join(tmp, 'home'), TMPDIR: tmp }
  }

  /** YTDLP_PATH as is; else the managed copy; else yt-dlp on PATH; else none. Then yt-dlp's verdict on the JS runtime. */
  async refreshYtdlp() {
    const { YTDLP_PATH, PATH } = this.env
    if (YTDLP_PATH) this.ytdlp = { path: YTDLP_PATH, version: await ytdlpVersion(YTDLP_PATH), source: 'config' }
    else {
      const managed = this.managed.inUse()
      if (managed) this.ytdlp = managed
      else {
        const onPath = Bun.which('yt-dlp', { PATH })
        this.ytdlp = onPath ? { path: onPath, version: await ytdlpVersion(onPath), source: 'path' } : null
      }
    }
    await this.checkJsRuntime().catch((err) => log.warn('JavaScript runtime check failed', errorFields(err)))
  }

  /** What a yt-dlp call gets as its JavaScript runtime. */
  jsRuntime(): YtdlpConfig['jsRuntime'] {
    const js = this.js
    return js && { name: js.name, path: js.path, supported: js.supported, env: runtimeEnv(js) }
  }

  /**
   * Runs `fn` with a yt-dlp configuration; the yt-dlp it names is not
   * swapped (managed update) until `fn` is done.
   */
  async withYtdlp<T>(fn: (cfg: YtdlpConfig) => Promise<T>, opts: { maxFilesize?: number; url?: string } = {}): Promise<T> {
    this.leases++
    try {
      await this.found
      const cookies = await loadCookies(this.deps.db, this.deps.cipher)
      return await fn({
        path: this.ytdlp?.path ?? null,
        version: this.ytdlp?.version ?? null,
        allow: this.deps.allow,
        jsRuntime: this.jsRuntime(),
        maxFilesize: opts.maxFilesize ?? this.env.MAX_UPLOAD_BYTES,
        cookies,
        tmpDir: join(this.env.DATA_DIR, 'tmp'),
        sleepRequests: opts.url && isPacedSite(opts.url) ? 1 : 0,
      })
    } finally {
      if (--this.leases === 0) for (const wake of this.idleWaiters.splice(0)) wake()
    }
  }

  /** A site answered with a bot check: its link jobs wait before the next call, longer each time. */
  noteBotCheck(url: string) {
    const base = this.env.BOT_CHECK_PAUSE_SECONDS * 1000
    const host = hostOf(url)
    if (!base || !host) return
    const strikes = (this.pauses.get(host)?.strikes ?? 0) + 1
    this.pauses.set(host, { strikes, until: Date.now() + Math.min(base * 2 ** (strikes - 1), MAX_PAUSE_MS) })
  }

  /** A call to the site went through: no more waiting for it. */
  noteSuccess(url: string) {
    this.pauses.delete(hostOf(url))
  }

  /** Waits out the site's pause after a bot check (rejects when `signal` aborts). */
  async waitForSite(url: string, signal: AbortSignal) {
    const pause = this.pauses.get(hostOf(url))
    const ms = pause ? pause.until - Date.now() : 0
    if (ms <= 0) return
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(done, ms)
      function done() {
        signal.removeEventListener('abort', onAbort)
        resolve()
      }
      function onAbort() {
        clearTimeout(timer)
        reject(signal.reason)
      }
      signal.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** Resolves once no yt-dlp call is running (the managed copy may then be switched). */
  idle(): Promise<void> {
    return this.leases === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  get running() {
    return this.leases
  }

  /** The `tools` part of GET /api/admin/status. */
  status() {
    const managed = this.managed.snapshot()
    const ffmpeg = this.ffmpeg
    return {
      ytDlp: {
        version: this.ytdlp?.version ?? null,
        path: this.ytdlp?.path ?? null,
        managed: this.ytdlp?.source === 'managed',
        channel: this.env.YTDLP_PATH ? 'off' : this.env.YTDLP_UPDATE,
        checkedAt: managed.checkedAt,
        updatedAt: managed.updatedAt,
        lastError: managed.lastError,
        source: this.ytdlp?.source ?? null,
        previousVersion: managed.previous?.version ?? null,
      },
      ffmpeg: {
        version: ffmpeg?.version ?? null,
        path: ffmpeg?.path ?? null,
        source: ffmpeg?.source ?? null,
        // the npm packages carry an older static build: the system's is faster and gets security fixes
        advice: ffmpeg && ffmpeg.source !== 'config' && ffmpeg.source !== 'path' ? 'Install the system ffmpeg (apt-get install ffmpeg): the bundled build is older.' : null,
      },
      jsRuntime: {
        name: this.js?.name ?? null,
        version: this.js?.version ?? null,
        path: this.js?.path ?? null,
        source: this.js?.source ?? null,
        supported: this.js?.supported ?? false,
      },
    }
  }
}

// below the default job time limit (JOB_TIMEOUT_SECONDS, 15 min): the wait happens inside the job
const MAX_PAUSE_MS = 10 * 60 * 1000
const hostOf = (url: string) => URL.parse(url)?.hostname.toLowerCase() ?? ''

/** Sites that throttle or bot-check bursts: yt-dlp sleeps between their requests. */
export function isPacedSite(url: string): boolean {
  const host = URL.parse(url)?.hostname.toLowerCase() ?? ''
  return /(^|\.)(youtube\.com|youtu\.be|youtube-nocookie\.com|googlevideo\.com)$/.test(host)
}
