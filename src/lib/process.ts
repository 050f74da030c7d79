import { existsSync } from 'node:fs'

/**
 * Runs an external tool (yt-dlp, ffmpeg) so that it cannot outlive its
 * reason to run:
 * - in its own process group, so an abort kills it and whatever it started
 *   (SIGTERM, then SIGKILL after a grace period);
 * - under `setpriv --pdeathsig KILL` when available, so the kernel kills it
 *   if this process dies without cleaning up (SIGKILL, OOM killer).
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

const SETPRIV = '/usr/bin/setpriv'
const hasSetpriv = process.platform === 'linux' && existsSync(SETPRIV)
const STDERR_TAIL = 8 * 1024
const KILL_GRACE_MS = 2000

export async function runProcess(
  cmd: string[],
  opts: {
    signal?: AbortSignal
    cwd?: string
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
    env: opts.env ? { ...process.env, ...opts.env } : process.env,
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
