import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Runs an external tool (yt-dlp, ffmpeg) so that it cannot outlive its
 * reason to run:
 * - in its own process group, so an abort kills it and whatever it started
 *   (SIGTERM, then SIGKILL after a grace period);
 * - under `setpriv --pdeathsig KILL` when available, so the kernel kills it
 *   if this process dies without cleaning up (SIGKILL, OOM killer).
 * - with a minimal environment (toolEnv): never the server's own variables
 *   (APP_SECRET, DATABASE_URL, OIDC_CLIENT_SECRET, SMTP_URL, YOUTUBE_API_KEY, ...);
 * stdout is handed over line by line; the tail of stderr is kept for errors.
 */
export interface ProcessResult {
  code: number
  /** stdout, when `collectStdout` is set. */
  stdout: string
  /** Last few KB of stderr. */
  stderr: string
}

export class ProcessFailed extends Error {
  constructor(
    readonly tool: string,
    readonly result: ProcessResult,
  ) {
    const last = result.stderr.trim().split('\n').filter(Boolean).slice(-3).join(' | ')
    super(`${tool} exited with ${result.code}${last ? `: ${last}` : ''}`)
  }
}

let privateHome: string | undefined
/** A private (0700) folder of this process, HOME and TMPDIR for tools when the caller names none. */
function toolHome(): string {
  if (!privateHome) {
    const dir = mkdtempSync(join(tmpdir(), 'tunefeed-tools-'))
    privateHome = dir
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  }
  return privateHome
}

/**
 * The whole environment a tool (yt-dlp, its JavaScript runtime, ffmpeg) gets:
 * PATH, HOME and TMPDIR (a private folder unless `extra` names one), the
 * locale (UTF-8, so non-ASCII titles and file names survive) and TZ, plus
 * `extra` (for example BUN_BE_BUN for the compiled binary acting as Bun).
 * Nothing else of the server's environment (docs/decisions/143-minimal-tool-environment.md).
 */
export function toolEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  // src/env.ts is the reader of the app's settings; these are the process's own basics, passed on as they are
  const own = process.env
  const home = toolHome()
  const lang = own.LANG || 'C.UTF-8'
  const env: Record<string, string> = { PATH: own.PATH || '/usr/local/bin:/usr/bin:/bin', HOME: home, TMPDIR: home, LANG: lang, LC_ALL: own.LC_ALL || lang }
  if (own.TZ) env.TZ = own.TZ
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v
  return env
}

const SETPRIV = '/usr/bin/setpriv'
const hasSetpriv = process.platform === 'linux' && existsSync(SETPRIV)
const STDERR_TAIL = 8 * 1024
const KILL_GRACE_MS = 2000

export async function runProcess(
  cmd: string[],
  opts: {
    signal?: AbortSignal
    cwd?: string
    /** Variables on top of toolEnv()'s minimal set (HOME, TMPDIR, PATH may be overridden). */
    env?: Record<string, string | undefined>
    onLine?: (line: string) => void
    onStderrLine?: (line: string) => void
    collectStdout?: boolean
    /** Largest stdout collected (bytes); the tool is killed past it. */
    maxStdout?: number
  } = {},
): Promise<ProcessResult> {
  opts.signal?.throwIfAborted()
  const argv = hasSetpriv ? [SETPRIV, '--pdeathsig', 'KILL', '--', ...cmd] : cmd
  const child = Bun.spawn(argv, {
    cwd: opts.cwd,
    env: toolEnv(opts.env),
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    detached: true,
  })
  let killTimer: ReturnType<typeof setTimeout> | undefined
  const killGroup = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid, sig)
    } catch {
      // already gone
    }
  }
  const onAbort = () => {
    killGroup('SIGTERM')
    killTimer = setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS)
  }
  opts.signal?.addEventListener('abort', onAbort, { once: true })

  let stdout = ''
  let stdoutBytes = 0
  const readStdout = (async () => {
    const decoder = new TextDecoder()
    let pending = ''
    for await (const chunk of child.stdout) {
      const text = decoder.decode(chunk, { stream: true })
      if (opts.collectStdout) {
        stdoutBytes += chunk.length
        if (opts.maxStdout && stdoutBytes > opts.maxStdout) {
          killGroup('SIGKILL')
          break
        }
        stdout += text
      }
      if (opts.onLine) {
        pending += text
        let nl: number
        while ((nl = pending.indexOf('\n')) >= 0) {
          opts.onLine(pending.slice(0, nl).replace(/\r$/, ''))
          pending = pending.slice(nl + 1)
        }
      }
    }
    if (opts.onLine && pending) opts.onLine(pending)
  })()
  const readStderr = (async () => {
    let tail = ''
    let pending = ''
    const decoder = new TextDecoder()
    for await (const chunk of child.stderr) {
      const text = decoder.decode(chunk, { stream: true })
      tail = (tail + text).slice(-STDERR_TAIL)
      if (opts.onStderrLine) {
        pending += text
        let nl: number
        while ((nl = pending.search(/[\r\n]/)) >= 0) {
          opts.onStderrLine(pending.slice(0, nl))
          pending = pending.slice(nl + 1)
        }
        if (pending.length > STDERR_TAIL) pending = ''
      }
    }
    return tail
  })()

  try {
    // the pipes close only once every process of the group holding them is gone
    const [code, , stderr] = await Promise.all([child.exited, readStdout, readStderr])
    opts.signal?.throwIfAborted()
    return { code, stdout, stderr }
  } finally {
    clearTimeout(killTimer)
    opts.signal?.removeEventListener('abort', onAbort)
  }
}
