/**
 * Faults of the machine rather than of the request: a full disk and a
 * database that cannot be reached. Recognised anywhere in an error's `cause`
 * chain (drizzle wraps the driver's error), answered by the app's onError
 * (src/app.ts) with a sentence instead of a 500 (docs/decisions/166, 167).
 */

export const DISK_FULL_DETAIL = 'The server is out of disk space; ask its administrator.'
export const DATABASE_UNAVAILABLE_DETAIL = 'The database cannot be reached right now; try again in a few seconds.'
/** Seconds a client waits before trying again during a database outage. */
export const DATABASE_RETRY_AFTER_SECONDS = 2

function* chain(err: unknown): Generator<{ code?: unknown; errno?: unknown; message?: unknown }> {
  let e = err as { cause?: unknown } | null | undefined
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    yield e as { code?: unknown; message?: unknown }
    e = e.cause as typeof e
  }
}

/**
 * ENOSPC / EDQUOT from the file system, PostgreSQL's `disk_full` (53100),
 * or a tool's (PGlite's, ffmpeg's) "No space left on device".
 */
export function isDiskFull(err: unknown): boolean {
  for (const e of chain(err)) {
    if (e.code === 'ENOSPC' || e.code === 'EDQUOT' || e.code === '53100') return true
    // PGlite's file system layer: Emscripten's ErrnoError with errno 51 (ENOSPC in its numbering) or 28 (Linux)
    if ((e as { name?: unknown }).name === 'ErrnoError' && (e.errno === 51 || e.errno === 28)) return true
    if (typeof e.message === 'string' && /No space left on device|Disk quota exceeded/i.test(e.message)) return true
  }
  return false
}

/** postgres.js's own codes for a connection that could not be made or was lost. */
const DRIVER_CODES = new Set(['CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED'])
/** The system's codes: the database's only when a query failed with them (an upstream fetch may fail the same way). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT'])

/** A query error from drizzle (`Failed query: ...`), whose cause is the driver's. */
const isQueryError = (e: { message?: unknown; name?: unknown }) =>
  e.name === 'DrizzleQueryError' || (typeof e.message === 'string' && e.message.startsWith('Failed query:'))

/**
 * The database cannot answer now: no connection, a connection lost, the
 * server shutting down or starting (57P01-57P03), a connection failure class
 * (08xxx), or a statement cancelled by its timeout (57014).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  let query = false
  for (const e of chain(err)) {
    query ||= isQueryError(e as { message?: unknown; name?: unknown })
    const code = typeof e.code === 'string' ? e.code : ''
    if (DRIVER_CODES.has(code)) return true
    if (query && SOCKET_CODES.has(code)) return true
    if (/^57P0[123]$/.test(code) || /^08\d{3}$/.test(code) || code === '57014') return true
  }
  return false
}

export interface DiskSpace {
  /** The folder measured (DATA_DIR). */
  path: string
  /** Bytes this process may still write there (`null` when the file system does not say). */
  freeBytes: number | null
  totalBytes: number | null
  /** The warning threshold (DISK_FREE_WARN_MB). */
  warnBelowBytes: number
  /** Free space is below the threshold (or under 5 % of a disk smaller than 20 times it). */
  low: boolean
  /** A sentence for the admin when low, else null. */
  warning: string | null
}

const MB = 1024 * 1024

function readable(bytes: number) {
  return bytes >= 1024 * MB ? `${(bytes / (1024 * MB)).toFixed(1)} GB` : `${Math.round(bytes / MB)} MB`
}

/** Free space of the data folder's file system, with the warning the admin page shows. */
export async function diskSpace(path: string, warnMb: number): Promise<DiskSpace> {
  const warnBelowBytes = warnMb * MB
  try {
    const { statfs } = await import('node:fs/promises')
    const s = await statfs(path)
    const freeBytes = Number(s.bavail) * Number(s.bsize)
    const totalBytes = Number(s.blocks) * Number(s.bsize)
    // a small disk (say 4 GB) would always be "low" against 1 GB: there 5 % of it counts
    const threshold = totalBytes > 0 && totalBytes < warnBelowBytes * 20 ? Math.min(warnBelowBytes, totalBytes * 0.05) : warnBelowBytes
    const low = freeBytes < threshold
    return {
      path,
      freeBytes,
      totalBytes,
      warnBelowBytes,
      low,
      warning: low ? `Only ${readable(freeBytes)} of disk space is left for the data folder: uploads and downloads fail when it is full. Free some space or delete old jobs.` : null,
    }
  } catch {
    return { path, freeBytes: null, totalBytes: null, warnBelowBytes, low: false, warning: null }
  }
}
