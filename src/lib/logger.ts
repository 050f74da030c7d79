/** Structured one-line JSON logs on stdout (stderr for warnings and errors). */
import { writeSync } from 'node:fs'
type Level = 'debug' | 'info' | 'warn' | 'error'
const order: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 }

let threshold = order[(process.env.LOG_LEVEL as Level) ?? 'info'] ?? order.info

export function setLogLevel(level: Level | 'silent') {
  threshold = order[level]
}

// The per-request lines are gathered and written together every 50 ms (or every 256 lines): a
// write per line, or even per event-loop turn, cost about a fifth of a fast request's time under
// load. Any other line flushes what is pending and goes out at once; the rest is flushed at exit.
const FLUSH_MS = 50
let pending: string[] = []
let timer: ReturnType<typeof setTimeout> | null = null
function flush() {
  if (timer) clearTimeout(timer)
  timer = null
  if (pending.length === 0) return
  const text = pending.join('')
  pending = []
  try {
    writeSync(1, text)
  } catch {}
}
process.once('exit', flush)

function write(level: Level, msg: string, fields?: Record<string, unknown>) {
  if (order[level] < threshold) return
  const line = JSON.stringify({ time: now(), level, msg, ...fields })
  // everything but the per-request lines is rare and may be awaited by a reader: out at once,
  // after the request lines gathered so far so the order is kept
  flush()
  if (order[level] >= order.warn) console.error(line)
  else {
    try {
      writeSync(1, `${line}\n`)
    } catch {}
  }
}

function push(line: string) {
  pending.push(line)
  if (pending.length >= 256) flush()
  else if (!timer) {
    timer = setTimeout(flush, FLUSH_MS)
    timer.unref?.()
  }
}

// the timestamp string is rebuilt at most once per millisecond
let isoAt = 0
let iso = ''
function now(): string {
  const t = Date.now()
  if (t !== isoAt) {
    isoAt = t
    iso = new Date(t).toISOString()
  }
  return iso
}

/**
 * The per-request line, written on the hottest path: the same JSON shape as
 * `log.info('request', {method, path, status, ms})`, built without an object.
 */
function request(method: string, path: string, status: number, ms: number) {
  if (order.info < threshold) return
  push(`{"time":"${now()}","level":"info","msg":"request","method":"${method}","path":${JSON.stringify(path)},"status":${status},"ms":${ms}}\n`)
}

export const log = {
  request,
  debug: (msg: string, fields?: Record<string, unknown>) => write('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write('error', msg, fields),
}

export function errorFields(err: unknown): Record<string, unknown> {
  return err instanceof Error ? { error: err.message, stack: err.stack } : { error: String(err) }
}
