import { chmod, mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { egressProxy } from '../lib/egress-proxy.ts'
import type { AllowList } from '../lib/url-guard.ts'
import { classifyYtdlp, JS_RUNTIME_MISSING, ToolFailure } from './failure.ts'
import { JS_RUNTIME_SINCE, needsJsRuntime, type JsRuntimeName } from './js-runtime.ts'
import { runTool } from './run.ts'
import { type Chapter, chaptersOf } from './chapters.ts'

/**
 * Every yt-dlp command line of the app is built here (music jobs, /grouping,
 * /lookup, the managed copy's self-test): one place for the flags that keep
 * it safe and working, whichever yt-dlp runs (docs/decisions/050-tool-invocation-and-failure-reasons.md).
 */
export interface YtdlpConfig {
  /** The yt-dlp to run; null when there is none (→ `tool_missing`). */
  path: string | null
  /** Its version (`2025.11.12`), to know which flags it understands; null if unknown. */
  version: string | null
  allow: AllowList
  /** The JavaScript runtime handed to yt-dlp (src/tools/js-runtime.ts); null when none was found. */
  jsRuntime: { name: JsRuntimeName; path: string; supported: boolean; env: Record<string, string> } | null
  /** `--max-filesize` in bytes. */
  maxFilesize: number
  /** A Netscape cookies.txt to hand over for this call, or null. */
  cookies: string | null
  /** Where the per-call cookies file is written (private, removed after the call). */
  tmpDir: string
  /** Extra pacing between requests to one site, in seconds (0: none). */
  sleepRequests?: number
  /** The PO-token provider's plugin folder and base URL (YTDLP_POT_PROVIDER_URL), or null (src/tools/pot.ts). */
  pot?: { pluginDir: string; baseUrl: string } | null
}

/** yt-dlp learnt `--js-runtimes` in 2025.11; older ones refuse unknown options, and run no JS anyway. */
export { JS_RUNTIME_SINCE }

/** yt-dlp's own PO-token provider framework, which bgutil's plugin builds on, came in 2025.05.22 (with `--plugin-dirs`). */
export const POT_PLUGIN_SINCE = '2025.05.22'

/**
 * Formats whose protocol is HTTP(S), HLS or DASH over HTTP: never a helper
 * program (rtmpdump, mpv, ...) that would fetch what the egress proxy did not check.
 */
export const AUDIO_FORMAT = 'bestaudio[protocol^=http]/bestaudio[protocol^=m3u8]/best[protocol^=http]/best[protocol^=m3u8]'

/** The flags every call gets, before its own; `cookieFile` when cookies are set. */
export function ytdlpBaseArgs(cfg: YtdlpConfig, proxyUrl: string, cookieFile: string | null): string[] {
  const args = [
    '--ignore-config',
    '--no-playlist',
    '--no-cache-dir',
    '--no-mtime',
    '--socket-timeout',
    '30',
    '--proxy',
    proxyUrl,
    // HLS/DASH stay in yt-dlp (through the proxy), never handed to ffmpeg or another downloader
    '--hls-prefer-native',
    '--max-filesize',
    String(cfg.maxFilesize),
  ]
  // only the chosen runtime: never one yt-dlp would find by itself on PATH
  if (cfg.version && cfg.version >= JS_RUNTIME_SINCE) {
    args.push('--no-js-runtimes')
    if (cfg.jsRuntime) args.push('--js-runtimes', `${cfg.jsRuntime.name}:${cfg.jsRuntime.path}`)
  }
  if (cfg.sleepRequests) args.push('--sleep-requests', String(cfg.sleepRequests))
  if (cfg.pot && cfg.version && cfg.version >= POT_PLUGIN_SINCE)
    args.push('--plugin-dirs', cfg.pot.pluginDir, '--extractor-args', `youtubepot-bgutilhttp:base_url=${cfg.pot.baseUrl}`)
  if (cookieFile) args.push('--cookies', cookieFile)
  return args
}

/**
 * Runs yt-dlp with the base flags and `args`; the cookies file (0600 in a
 * private folder) exists only for the duration of the call.
 */
export async function runYtdlp(
  cfg: YtdlpConfig,
  args: string[],
  opts: Omit<Parameters<typeof runTool>[2], 'classify' | 'env'>,
) {
  if (!cfg.path) throw new ToolFailure('tool_missing', 'no yt-dlp: YTDLP_PATH unset, no managed copy and none on PATH')
  // YouTube's challenges need a supported runtime; other sites do not
  const target = args[args.lastIndexOf('--') + 1]
  if (target && needsJsRuntime(target) && !cfg.jsRuntime?.supported) throw new ToolFailure('tool_missing', JS_RUNTIME_MISSING)
  const proxy = await egressProxy(cfg.allow)
  let dir: string | null = null
  // HOME and TMPDIR of yt-dlp and its runtime: a private folder under DATA_DIR/tmp (src/lib/process.ts toolEnv)
  const home = join(cfg.tmpDir, 'home')
  await mkdir(home, { recursive: true, mode: 0o700 })
  try {
    let cookieFile: string | null = null
    if (cfg.cookies) {
      dir = join(cfg.tmpDir, `ytdlp-${crypto.randomUUID()}`)
      await mkdir(dir, { recursive: true, mode: 0o700 })
      cookieFile = join(dir, 'cookies.txt')
      await writeFile(cookieFile, cfg.cookies, { mode: 0o600 })
      await chmod(cookieFile, 0o600)
    }
    return await runTool('yt-dlp', [cfg.path, ...ytdlpBaseArgs(cfg, proxy.url, cookieFile), ...args], {
      ...opts,
      env: { HOME: home, TMPDIR: cfg.tmpDir, ...cfg.jsRuntime?.env },
      classify: classifyYtdlp,
    })
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true })
  }
}

/** The most entries a playlist lookup lists (and a playlist job takes). */
export const MAX_PLAYLIST_ENTRIES = 100

/**
 * `yt-dlp -J`: the video's metadata without downloading it. With `playlist`,
 * a playlist link answers with its first 100 entries, unresolved (flat).
 */
export async function videoInfo(
  cfg: YtdlpConfig,
  url: string,
  signal: AbortSignal,
  opts: { playlist?: boolean } = {},
): Promise<Record<string, unknown>> {
  const playlist = opts.playlist ? ['--yes-playlist', '--flat-playlist', '--playlist-end', String(MAX_PLAYLIST_ENTRIES)] : []
  const result = await runYtdlp(cfg, [...playlist, '-J', '--skip-download', '--', url], {
    signal,
    collectStdout: true,
    maxStdout: 32 * 1024 * 1024,
  })
  return JSON.parse(result.stdout) as Record<string, unknown>
}

const PROGRESS_MARK = '[progress]'
const SIZE_MARK = '[size]'
const CHAPTERS_MARK = '[chapters]'

/**
 * Downloads the best audio (or best overall when there is no audio-only
 * format) into `dir` as `source.<ext>`; returns its path and the chapters
 * yt-dlp knows of (from the same call).
 * `onProgress` gets 0-1 from yt-dlp's progress template.
 */
export async function downloadAudio(
  cfg: YtdlpConfig,
  url: string,
  dir: string,
  signal: AbortSignal,
  onProgress: (fraction: number) => void,
  subLangs: readonly string[] = [],
): Promise<{ path: string; chapters: Chapter[] }> {
  let path = ''
  let chapters: Chapter[] = []
  let skipped = ''
  let size = 0
  await runYtdlp(
    cfg,
    downloadArgs(url, dir, subLangs),
    {
      signal,
      onLine(line) {
        if (line.startsWith(PROGRESS_MARK)) {
          const [done, total, estimate] = line.slice(PROGRESS_MARK.length).trim().split(' ').map(Number)
          const whole = total! > 0 ? total! : Math.max(estimate!, 0) || 0
          if (whole > 0 && done! >= 0) onProgress(Math.min(1, done! / whole))
        } else if (line.startsWith(SIZE_MARK)) size = Number(line.slice(SIZE_MARK.length)) || 0
        else if (line.startsWith('/')) path = line.trim()
        else if (line.startsWith(CHAPTERS_MARK)) {
          try {
            chapters = chaptersOf(JSON.parse(line.slice(CHAPTERS_MARK.length)) as Record<string, unknown>)
          } catch {
            // no chapters then
          }
        }
        else if (/larger than max-filesize/.test(line)) skipped = line.trim()
      },
    },
  )
  // yt-dlp skips a file over --max-filesize and still exits 0, without a file (of our flags only
  // --max-filesize skips; its "larger than" note shows only when yt-dlp is not quiet)
  if (skipped || !path) throw new ToolFailure('too_large', skipped || `no file: ${size || 'unknown'} bytes, over --max-filesize ${cfg.maxFilesize}?`)
  if (!path.startsWith(`${dir}/`)) throw new ToolFailure('internal', 'yt-dlp did not report the downloaded file')
  return { path, chapters }
}

/**
 * downloadAudio's own arguments (after the base flags). With `subLangs`, the subtitles in those
 * languages come in the same pass as `source.<lang>.vtt` (hand-made first, else automatic: yt-dlp's
 * own order per language).
 */
export function downloadArgs(url: string, dir: string, subLangs: readonly string[] = []): string[] {
  return [
    '-f',
    AUDIO_FORMAT,
    '-o',
    `${dir}/source.%(ext)s`,
    ...(subLangs.length ? ['--write-subs', '--write-auto-subs', '--sub-langs', subLangs.join(','), '--sub-format', 'vtt'] : []),
    '--newline',
    '--progress',
    // `--print` makes yt-dlp quiet, hiding its "larger than max-filesize" note: print the size instead
    '--print',
    `before_dl:${SIZE_MARK} %(filesize,filesize_approx)s`,
    '--progress-template',
    `download:${PROGRESS_MARK} %(progress.downloaded_bytes)s %(progress.total_bytes)s %(progress.total_bytes_estimate)s`,
    '--print',
    'after_move:filepath',
    '--print',
    `after_move:${CHAPTERS_MARK}%(.{chapters,duration})j`,
    '--no-simulate',
    '--',
    url,
  ]
}

/** The uploader or channel name from the metadata, or null. */
export function groupingOf(info: Record<string, unknown>): string | null {
  for (const key of ['uploader', 'channel', 'artist', 'creator']) {
    const value = info[key]
    if (typeof value === 'string' && value.trim()) return value.trim()
  }
  return null
}

/** `yt-dlp --version` (first line), or null when it does not run. */
export async function ytdlpVersion(path: string, signal = AbortSignal.timeout(20_000)): Promise<string | null> {
  try {
    const result = await runTool('yt-dlp', [path, '--version'], { signal, collectStdout: true, classify: classifyYtdlp })
    return result.stdout.trim().split('\n')[0]?.trim() || null
  } catch {
    return null
  }
}
