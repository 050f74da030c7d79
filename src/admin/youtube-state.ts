import type { AppContext } from '../context.ts'
import type { CanaryStatus } from '../tools/canary.ts'
import { JS_RUNTIME_MISSING } from '../tools/failure.ts'

/**
 * What the admin status says about YouTube downloads and the yt-dlp in use, derived in one
 * place so that the page never says "Working" above a failed canary
 * (docs/decisions/233-one-youtube-state.md).
 */

/** A yt-dlp older than this (by the date in its version) is flagged: YouTube changes faster. */
export const YTDLP_STALE_DAYS = 60
const DAY_MS = 24 * 60 * 60 * 1000

/** Where the yt-dlp in use really comes from: a signed release the app installed, the system's, or YTDLP_PATH. */
export type YtdlpOrigin = 'release' | 'system' | 'setting'

/** The release date in a yt-dlp version (`2026.08.19`, nightly `2026.08.19.232907`), or null. */
export function ytdlpReleasedOn(version: string | null): string | null {
  const m = /^(\d{4})\.(\d{2})\.(\d{2})/.exec(version ?? '')
  if (!m) return null
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])))
  return Number.isNaN(date.getTime()) ? null : date.toISOString().slice(0, 10)
}

/** `origin`, `releasedOn` and `warning` of `tools.ytDlp`. */
export function ytdlpFacts(ctx: Pick<AppContext, 'tools'>, now = Date.now()) {
  const inUse = ctx.tools.ytdlp
  const managedBuild = ctx.tools.managed.snapshot().current
  const origin: YtdlpOrigin | null = !inUse
    ? null
    : inUse.source === 'config'
      ? 'setting'
      : inUse.source === 'managed' && managedBuild && managedBuild.asset !== 'seed'
        ? 'release'
        : 'system'
  const releasedOn = ytdlpReleasedOn(inUse?.version ?? null)
  const days = releasedOn ? Math.floor((now - Date.parse(releasedOn)) / DAY_MS) : null
  const warning =
    days !== null && days > YTDLP_STALE_DAYS
      ? `yt-dlp ${inUse!.version} is ${days.toLocaleString('en-US')} days old: YouTube changes often and an old yt-dlp stops working with it. ${
          origin === 'setting' ? 'Update the yt-dlp that YTDLP_PATH names.' : ctx.tools.managed.enabled ? 'Update it with Update now.' : 'Install a newer yt-dlp, or turn YTDLP_UPDATE on.'
        }`
      : null
  return { origin, releasedOn, warning }
}

export type YoutubeState = 'working' | 'paused' | 'failing' | 'unknown'

/**
 * YouTube downloads in one word, from the checks that can tell: a yt-dlp and a supported
 * JavaScript runtime, the bot-check pause, then the canary (the one real extraction).
 */
export function youtubeState(input: {
  ytdlpVersion: string | null
  jsSupported: boolean
  pausedUntil: string | null
  canary: Pick<CanaryStatus, 'ok' | 'lastError'>
}): { state: YoutubeState; reason: string | null } {
  if (!input.ytdlpVersion) return { state: 'failing', reason: 'yt-dlp is not installed: install it, or set YTDLP_PATH.' }
  if (!input.jsSupported) return { state: 'failing', reason: JS_RUNTIME_MISSING }
  if (input.pausedUntil) return { state: 'paused', reason: 'YouTube asked this server to confirm it is not a bot: downloads are paused for a while.' }
  if (input.canary.ok === false) return { state: 'failing', reason: input.canary.lastError }
  if (input.canary.ok === null) return { state: 'unknown', reason: 'Not checked yet: run the canary to check that YouTube downloads work.' }
  return { state: 'working', reason: null }
}
