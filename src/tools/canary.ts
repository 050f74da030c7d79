import { mkdir, readFile, rename, writeFile, chmod } from 'node:fs/promises'
import { join } from 'node:path'
import type { AppContext } from '../context.ts'
import { log } from '../lib/logger.ts'
import { pageUrl } from '../lib/origin.ts'
import { type ErrorKind, ToolFailure, withoutAdvice } from './failure.ts'
import type { YtdlpInUse } from './toolbox.ts'
import { videoInfo } from './ytdlp.ts'

/**
 * The canary (docs/decisions/153-ytdlp-canary.md): the app extracts
 * YTDLP_CANARY_URL with yt-dlp (`-J --skip-download`: metadata and formats, no
 * download) daily, after each yt-dlp update and when an admin asks, through
 * the same path as jobs (ctx.tools.withYtdlp, so YouTube's pacing applies).
 * It passes when yt-dlp answers with at least one audio or video format (not
 * only storyboard images, which is what yt-dlp gives without a JavaScript
 * runtime). After an update, a canary that fails on the new build for a
 * reason a build can cause (BUILD_KINDS) but passes on the previous one
 * switches back; a failure of the moment (a bot check, the network, a
 * timeout) neither switches back nor rejects the build, and is tried again
 * after the pause (docs/decisions/232-canary-build-failures-only.md). One
 * that fails tells the admins why. The result is kept in
 * DATA_DIR/tools/canary.json (0600).
 */
export interface CanaryStatus {
  url: string
  /** null: not run yet for this URL. */
  ok: boolean | null
  checkedAt: string | null
  /** Why it failed and what to do, in words for a person. */
  lastError: string | null
  /** yt-dlp's own line for that failure (shown one step away), or null. */
  toolOutput: string | null
}

interface SavedCanary extends Omit<CanaryStatus, 'toolOutput'> {
  kind: ErrorKind | null
  version: string | null
  toolOutput?: string | null
}

/** Failures a yt-dlp build can cause: only these switch back to the build before (and reject the new one). */
export const BUILD_KINDS: ReadonlySet<ErrorKind> = new Set(['tool_outdated', 'tool_missing', 'internal', 'unsupported_url', 'unavailable', 'conversion'])
/** Failures of the moment: after an update they are tried again once the pause is over, never held against the build. */
export const TEMPORARY_KINDS: ReadonlySet<ErrorKind> = new Set(['bot_check', 'network', 'timeout'])
/** How long after a network error or a timeout the canary of an update tries again. */
export const CANARY_RETRY_MS = 10 * 60 * 1000
/** Tries of an update's canary after failures of the moment, before the daily run takes over. */
export const CANARY_RETRIES = 3

export type CanaryTrigger = 'schedule' | 'start' | 'admin' | 'update'

const CANARY_TIMEOUT_MS = 2 * 60 * 1000

/** What a failure kind means for the canary, and what the admin can do about it. */
const REASONS: Partial<Record<ErrorKind, { reason: string; advice: string }>> = {
  bot_check: { reason: 'bot check', advice: 'YouTube asked to confirm this is not a bot: wait for the pause to end, or set a PO-token provider or cookies of a separate account.' },
  tool_missing: { reason: 'no runtime', advice: 'yt-dlp has no supported JavaScript runtime (or no yt-dlp at all): install Deno 2.3 or later, or Node 22 or later.' },
  tool_outdated: { reason: 'outdated', advice: 'yt-dlp is out of date for YouTube: update it from the admin page, or wait for a new release.' },
  network: { reason: 'network', advice: 'YouTube could not be reached from the server: check its connection.' },
  timeout: { reason: 'network', advice: 'YouTube did not answer in time: check the server\'s connection.' },
}

export function canaryReason(kind: ErrorKind): { reason: string; advice: string } {
  return REASONS[kind] ?? { reason: kind.replace(/_/g, ' '), advice: `The canary video could not be read (${kind.replace(/_/g, ' ')}): check YTDLP_CANARY_URL names a public video.` }
}

const file = (ctx: Pick<AppContext, 'env'>) => join(ctx.env.DATA_DIR, 'tools', 'canary.json')

async function readSaved(ctx: Pick<AppContext, 'env'>): Promise<SavedCanary | null> {
  try {
    const saved = JSON.parse(await readFile(file(ctx), 'utf8')) as SavedCanary
    return saved.url === ctx.env.YTDLP_CANARY_URL ? saved : null
  } catch {
    return null
  }
}

/** `tools.canary` of GET /api/admin/status (read from the file: another process may have run it). */
export async function canaryStatus(ctx: Pick<AppContext, 'env'>): Promise<CanaryStatus> {
  const saved = await readSaved(ctx)
  return {
    url: ctx.env.YTDLP_CANARY_URL,
    ok: saved?.ok ?? null,
    checkedAt: saved?.checkedAt ?? null,
    lastError: saved?.lastError ?? null,
    toolOutput: saved?.toolOutput ?? null,
  }
}

async function save(ctx: Pick<AppContext, 'env'>, value: SavedCanary) {
  const dir = join(ctx.env.DATA_DIR, 'tools')
  await mkdir(dir, { recursive: true, mode: 0o700 })
  await chmod(dir, 0o700)
  const tmp = `${file(ctx)}.${process.pid}.tmp`
  await writeFile(tmp, JSON.stringify(value, null, 2), { mode: 0o600 })
  await chmod(tmp, 0o600)
  await rename(tmp, file(ctx))
}

type Outcome = { ok: true; version: string | null } | { ok: false; version: string | null; kind: ErrorKind; message: string }

/** yt-dlp's own ERROR line (without the advice it appends), short. */
function toolLine(message: string): string {
  const text = withoutAdvice(message)
  const at = text.lastIndexOf('ERROR:')
  const line = (at >= 0 ? text.slice(at) : text).split('\n')[0]!.trim()
  return line.length > 200 ? `${line.slice(0, 199)}…` : line
}

/** One extraction of the canary URL, with the yt-dlp in use or with `build`. */
export async function extractCanary(ctx: Pick<AppContext, 'tools' | 'env'>, build?: YtdlpInUse): Promise<Outcome> {
  const url = ctx.env.YTDLP_CANARY_URL
  let version: string | null = build?.version ?? null
  try {
    return await ctx.tools.withYtdlp(
      async (cfg) => {
        const use = build ? { ...cfg, path: build.path, version: build.version } : cfg
        version = use.version
        const info = await videoInfo(use, url, AbortSignal.timeout(CANARY_TIMEOUT_MS))
        if (!hasMediaFormat(info)) {
          throw new ToolFailure('tool_missing', 'yt-dlp found no audio or video format, only images: it has no working JavaScript runtime for YouTube.')
        }
        return { ok: true as const, version }
      },
      // the canary checks the build everyone's work depends on: it goes before anyone's work
      { url, work: 'admin' },
    )
  } catch (err) {
    if (err instanceof ToolFailure) return { ok: false, version, kind: err.kind, message: err.message }
    return { ok: false, version, kind: 'internal', message: err instanceof Error ? err.message : String(err) }
  }
}

/** At least one format that is audio or video, not a storyboard (`mhtml`, no codecs). */
export function hasMediaFormat(info: Record<string, unknown>): boolean {
  const formats = Array.isArray(info.formats) ? (info.formats as Record<string, unknown>[]) : [info]
  return formats.some((f) => {
    if (typeof f?.url !== 'string' || f.ext === 'mhtml' || f.protocol === 'mhtml') return false
    return !(f.vcodec === 'none' && f.acodec === 'none')
  })
}

/** The failure for a person (yt-dlp's own line is kept apart, in `toolOutput`). */
const describe = (o: Extract<Outcome, { ok: false }>) => {
  const { reason, advice } = canaryReason(o.kind)
  return `Failed (${reason}) on yt-dlp ${o.version ?? 'unknown'}: ${advice}`
}

/** The outcome of one run: the status, and when an update's canary should try again (null: it should not). */
export interface CanaryRun extends CanaryStatus {
  retryInMs: number | null
}

/**
 * Runs the canary and records it. With `update`, a failure on the new build
 * is tried on the previous build: passing there switches back (and says so in
 * `tools.ytDlp.lastError`). A failure the admins were not told of yet (or of
 * another reason) notifies them.
 */
export async function runCanary(ctx: AppContext, trigger: CanaryTrigger): Promise<CanaryRun> {
  const before = await readSaved(ctx)
  let outcome = await extractCanary(ctx)
  let switchedBack: string | null = null
  let previousFailed = false
  let retryInMs: number | null = null
  if (!outcome.ok && trigger === 'update' && TEMPORARY_KINDS.has(outcome.kind)) {
    // YouTube's bot check, the network or a timeout say nothing about the build: it stays, and is tried again
    retryInMs = await retryDelay(ctx, outcome.kind)
    log.info('canary after an update met a failure of the moment: the new build stays; tried again later', { kind: outcome.kind, inMs: retryInMs })
  } else if (!outcome.ok && trigger === 'update' && BUILD_KINDS.has(outcome.kind)) {
    const previous = ctx.tools.managed.previousInUse()
    if (previous) {
      const onPrevious = await extractCanary(ctx, previous)
      if (onPrevious.ok) {
        const failed = outcome
        const back = await ctx.tools.managed.rollback()
        if (back) {
          switchedBack = `yt-dlp ${failed.version ?? 'the new build'} failed the canary (${canaryReason(failed.kind).reason}: ${toolLine(failed.message)}) but ${back.version} passed it: switched back to ${back.version}. Later checks do not install ${failed.version ?? 'that build'} again.`
          await ctx.tools.managed.noteError(switchedBack)
          log.warn('yt-dlp update rolled back: the canary failed on the new build', { failed: failed.version, back: back.version, kind: failed.kind })
          outcome = onPrevious
        }
      } else previousFailed = true
    }
  }
  const now = new Date().toISOString()
  const saved: SavedCanary = outcome.ok
    ? { url: ctx.env.YTDLP_CANARY_URL, ok: true, checkedAt: now, lastError: null, kind: null, version: outcome.version }
    : {
        url: ctx.env.YTDLP_CANARY_URL,
        ok: false,
        checkedAt: now,
        lastError: describe(outcome),
        toolOutput: toolLine(outcome.message) || null,
        kind: outcome.kind,
        version: outcome.version,
      }
  await save(ctx, saved)
  if (outcome.ok) log.info('canary passed', { trigger, version: outcome.version })
  else {
    log.warn('canary failed', { trigger, version: outcome.version, kind: outcome.kind, error: toolLine(outcome.message) })
    // told once per failure: again only after a pass, or for another reason
    if (before?.ok !== false || before.kind !== outcome.kind || trigger === 'update') {
      const { reason, advice } = canaryReason(outcome.kind)
      await ctx.alertAdmins({
        event: 'tools.canary',
        title: `YouTube downloads fail: ${reason}`,
        text: `The canary (${ctx.env.YTDLP_CANARY_URL}) failed on yt-dlp ${outcome.version ?? 'unknown'}${trigger === 'update' ? ' after an update' : ''}${previousFailed ? ', and on the build before it too' : ''}. ${advice}${retryInMs !== null ? ' The new build stays: this failure is not its doing, and the canary tries again after the pause.' : ''}`,
        url: pageUrl(ctx, '/admin'),
      })
    }
  }
  return { url: saved.url, ok: saved.ok, checkedAt: saved.checkedAt, lastError: saved.lastError, toolOutput: saved.toolOutput ?? null, retryInMs }
}

/** After a bot check, once YouTube's pause is over; after a network error or a timeout, CANARY_RETRY_MS. */
async function retryDelay(ctx: AppContext, kind: ErrorKind): Promise<number> {
  if (kind !== 'bot_check') return CANARY_RETRY_MS
  const { pausedUntil } = await ctx.tools.pace.status()
  const left = pausedUntil ? Date.parse(pausedUntil) - Date.now() : 0
  // a moment past the pause's end (another process may hold the first turn after it)
  return Math.max(0, left) + 5_000
}

/** True when the canary has no result for its URL from the last day (then it runs at start). */
export async function canaryDue(ctx: Pick<AppContext, 'env'>): Promise<boolean> {
  const saved = await readSaved(ctx)
  return !saved?.checkedAt || Date.now() - Date.parse(saved.checkedAt) > 24 * 60 * 60 * 1000
}
