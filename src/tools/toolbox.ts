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
import { ToolFailure } from './failure.ts'
import { isPacedSite, type PaceTurn, type TakeOptions, YoutubePace } from './pace.ts'
import { PotProvider } from './pot.ts'

export { isPacedSite } from './pace.ts'

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
  /** The app-wide YouTube gate: pacing and the pause after a bot check (src/tools/pace.ts). */
  readonly pace: YoutubePace
  /** The PO-token provider (YTDLP_POT_PROVIDER_URL) and its yt-dlp plugin (src/tools/pot.ts). */
  readonly pot: PotProvider
  private leases = 0
  private idleWaiters: (() => void)[] = []

  constructor(
    readonly env: Env,
    /** `db` may be a function: the server finds the tools (init) while the database opens (src/server.ts). */
    private readonly deps: { db: Db | (() => Db); cipher: Cipher; allow: AllowList },
  ) {
    this.managed = new ManagedYtdlp(this)
    this.managedDeno = new ManagedDeno(env.DATA_DIR, env.DENO_RELEASE_URL, env.DENO_SHA256)
    this.pace = new YoutubePace(deps.db, env)
    this.pot = new PotProvider(env)
  }

  /**
   * Finds ffmpeg and yt-dlp (reading, or seeding, the managed copy's state).
   * The server calls it once it serves (src/server.ts): until it is done,
   * health says the tools are starting and yt-dlp calls wait for it.
   */
  init(): Promise<void> {
    this.found ??= (async () => {
      // ffmpeg, the managed yt-dlp (seeded at a first start: two yt-dlp runs) and the JavaScript
      // runtime are found side by side (docs/decisions/311); yt-dlp's verdict on the runtime needs both
      await Promise.all([
        findFfmpeg({ configured: this.env.FFMPEG_PATH, searchPath: this.env.PATH }).then((found) => (this.ffmpeg = found)),
        this.managed.load(),
        this.refreshJsRuntime({ check: false }),
      ])
      await this.refreshYtdlp()
      await this.pot.start()
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
   *
   * With a YouTube `url` (isPacedSite) the call first takes its turn at the
   * app-wide gate (src/tools/pace.ts): it waits up to `maxWaitMs` (default:
   * as long as needed; aborted by `signal`), telling `onWait`, and rejects
   * with PaceWait when its turn or the end of a bot-check pause is further
   * away. A bot check met by `fn` pauses YouTube; a success resets the backoff.
   */
  async withYtdlp<T>(fn: (cfg: YtdlpConfig) => Promise<T>, opts: YtdlpCallOptions = {}): Promise<T> {
    const paced = !!opts.url && isPacedSite(opts.url)
    let turn: PaceTurn | null = null
    if (paced) {
      await this.found
      turn = await this.pace.take(opts)
    }
    this.leases++
    try {
      await this.found
      const cookies = await loadCookies(typeof this.deps.db === 'function' ? this.deps.db() : this.deps.db, this.deps.cipher)
      const result = await fn({
        path: this.ytdlp?.path ?? null,
        version: this.ytdlp?.version ?? null,
        allow: this.deps.allow,
        jsRuntime: this.jsRuntime(),
        maxFilesize: opts.maxFilesize ?? this.env.MAX_UPLOAD_BYTES,
        cookies,
        tmpDir: join(this.env.DATA_DIR, 'tmp'),
        sleepRequests: paced ? 1 : 0,
        pot: this.pot.forYtdlp(),
      })
      if (turn) await this.pace.noteSuccess(turn).catch(() => {})
      return result
    } catch (err) {
      if (paced && err instanceof ToolFailure && err.kind === 'bot_check')
        await this.pace.noteBotCheck(botCheckCause(err.message)).catch((noteErr) => log.error('bot-check pause not recorded', errorFields(noteErr)))
      throw err
    } finally {
      if (--this.leases === 0) for (const wake of this.idleWaiters.splice(0)) wake()
    }
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
      potProvider: this.pot.status(),
      potPlugin: this.pot.pluginStatus(),
    }
  }
}

/** How a call asks for its turn: its URL (a YouTube one is paced) and how long it may wait. */
export interface YtdlpCallOptions extends Pick<TakeOptions, 'signal' | 'maxWaitMs' | 'onWait' | 'owner' | 'work'> {
  maxFilesize?: number
  url?: string
}

/** The tool's own words, cut to the sentence that says what happened (for `pauseCause`). */
export function botCheckCause(message: string): string {
  const sign = /not a bot|rate-limited|429|captcha/i
  const line = message.split(/ \| |\n/).find((l) => sign.test(l)) ?? message
  const text = line.replace(/^.*?ERROR:\s*/, '')
  // up to the end of the sentence holding the sign (YouTube's advice about cookies follows it)
  const end = text.slice(text.search(sign)).search(/[.!](\s|$)/)
  return (end >= 0 ? text.slice(0, text.search(sign) + end + 1) : text).slice(0, 300)
}
