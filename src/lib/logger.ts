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
  const level = requestLevel(path, status)
  if (order[level] < threshold) return
  push(`{"time":"${now()}","level":"${level}","msg":"request","method":"${method}","path":${JSON.stringify(redactPath(path))},"status":${status},"ms":${ms}}\n`)
}

/**
 * The web app's static files (scripts, styles, images, fonts, the manifest) answered fine are logged
 * at `debug`: a browser asks for dozens per visit and they drowned the log at `info`. Pages, API,
 * Subsonic and feed requests, and every failed request, stay at `info`.
 */
export function requestLevel(path: string, status: number): 'info' | 'debug' {
  if (status >= 400 || path.startsWith('/api/') || path.startsWith('/rest/') || path.startsWith('/feeds/')) return 'info'
  return path.startsWith('/assets/') || STATIC_FILE.test(path) ? 'debug' : 'info'
}
const STATIC_FILE = /\.(?:js|mjs|css|map|svg|png|jpe?g|webp|gif|ico|woff2?|ttf|webmanifest|json|txt|xml)$/i

// paths that carry a secret in themselves (the link in the verification mail, the podcast feeds' secret)
const TOKEN_PATH = /^(\/(?:api\/)?(?:verify|reset)|\/feeds|\/websub)\/[^/]+/

/** The path as it may be logged: a token segment becomes `[redacted]`. */
export function redactPath(path: string): string {
  return TOKEN_PATH.test(path) ? path.replace(TOKEN_PATH, '$1/[redacted]') : path
}

export const log = {
  request,
  debug: (msg: string, fields?: Record<string, unknown>) => write('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write('error', msg, fields),
}

/**
 * An error as log fields. A failed database query (drizzle's DrizzleQueryError)
 * is logged with its SQL and the database's SQLSTATE and object names, never
 * its parameters: they hold token hashes, e-mail addresses and user text
 * (and PostgreSQL's messages may quote a value, e.g. invalid input syntax).
 */
function dbReason(cause: unknown): string {
  if (!cause || typeof cause !== 'object') return ''
  const c = cause as Record<string, unknown>
  const code = typeof c.code === 'string' ? c.code : undefined
  const names = ['constraint', 'constraint_name', 'table', 'table_name', 'column', 'column_name']
    .map((k) => (typeof c[k] === 'string' ? `${k.replace('_name', '')} ${c[k]}` : ''))
    .filter(Boolean)
  // class 42 (syntax, undefined table or column) names objects, not values
  const message = code?.startsWith('42') && typeof c.message === 'string' ? c.message : ''
  const parts = [code && `SQLSTATE ${code}`, ...names, message].filter(Boolean)
  return parts.length ? `: ${parts.join(', ')}` : ''
}

export function errorFields(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { error: String(err) }
  const failed = err as Error & { query?: unknown; params?: unknown }
  if (typeof failed.query !== 'string' || !('params' in failed)) return { error: err.message, stack: err.stack }
  const error = `Failed query: ${failed.query} (parameters not logged)${dbReason(err.cause)}`
  const frames = err.stack?.indexOf('\n    at ') ?? -1
  return { error, stack: frames >= 0 ? `${err.name}: ${error}${err.stack!.slice(frames)}` : undefined }
}
