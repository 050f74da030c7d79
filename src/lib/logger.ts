/** Structured one-line JSON logs on stdout (stderr for warnings and errors). */
import { writeSync } from 'node:fs'
type Level = 'debug' | 'info' | 'warn' | 'error'
const order: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 }

let threshold = order[(process.env.LOG_LEVEL as Level) ?? 'info'] ?? order.info

export function setLogLevel(level: Level | 'silent') {
  threshold = order[level]
}

// Info and debug lines (one per request) are batched into one write per event-loop turn:
// a syscall per line cost a measurable share of a fast request. Warnings and errors go out at once.
let pending: string[] = []
let scheduled = false
function flush() {
  scheduled = false
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
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })
  if (order[level] >= order.warn) {
    flush()
    console.error(line)
    return
  }
  pending.push(line + '\n')
  if (pending.length >= 256) flush()
  else if (!scheduled) {
    scheduled = true
    setImmediate(flush)
  }
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write('error', msg, fields),
}

export function errorFields(err: unknown): Record<string, unknown> {
  return err instanceof Error ? { error: err.message, stack: err.stack } : { error: String(err) }
}
