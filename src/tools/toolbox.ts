import { join } from 'node:path'
import type { Db } from '../db/client.ts'
import { embedded } from '../embedded.ts'
import type { Env } from '../env.ts'
import type { Cipher } from '../lib/secret.ts'
import type { AllowList } from '../lib/url-guard.ts'
import { loadCookies } from './cookies.ts'
import { ManagedYtdlp } from './managed.ts'
import { findFfmpeg, type Ffmpeg } from './ffmpeg.ts'
import { ytdlpVersion, type YtdlpConfig } from './ytdlp.ts'
import { ToolFailure } from './failure.ts'
import { errorFields, log } from '../lib/logger.ts'
import { isPacedSite, type PaceTurn, type TakeOptions, YoutubePace } from './pace.ts'
import { PotProvider } from './pot.ts'

export { isPacedSite } from './pace.ts'

export type YtdlpSource = 'config' | 'managed' | 'path'

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
  /** The app-wide YouTube gate: pacing and the pause after a bot check (src/tools/pace.ts). */
  readonly pace: YoutubePace
  /** The PO-token provider (YTDLP_POT_PROVIDER_URL) and its yt-dlp plugin (src/tools/pot.ts). */
  readonly pot: PotProvider
  private leases = 0
  private idleWaiters: (() => void)[] = []

  constructor(
    readonly env: Env,
    private readonly deps: { db: Db; cipher: Cipher; allow: AllowList },
  ) {
    this.managed = new ManagedYtdlp(this)
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
      this.ffmpeg = await findFfmpeg({ configured: this.env.FFMPEG_PATH, searchPath: this.env.PATH })
      await this.managed.load()
      await this.refreshYtdlp()
      await this.pot.start()
      this.ready = true
    })()
    return this.found
  }
  private found: Promise<void> | null = null
  /** True once init() is done. */
  ready = false

  /** YTDLP_PATH as is; else the managed copy; else yt-dlp on PATH; else none. */
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
  }

  /** The app's own Bun, which yt-dlp runs for sites that need JavaScript. */
  jsRuntime(): { path: string; env: Record<string, string> } {
    // the compiled binary is the app; BUN_BE_BUN=1 makes it behave as the plain bun it contains
    return { path: process.execPath, env: embedded() ? { BUN_BE_BUN: '1' } : {} }
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
      const cookies = await loadCookies(this.deps.db, this.deps.cipher)
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
      jsRuntime: { name: 'bun', version: Bun.version },
      potProvider: this.pot.status(),
      potPlugin: this.pot.pluginStatus(),
    }
  }
}

/** How a call asks for its turn: its URL (a YouTube one is paced) and how long it may wait. */
export interface YtdlpCallOptions extends Pick<TakeOptions, 'signal' | 'maxWaitMs' | 'onWait'> {
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
