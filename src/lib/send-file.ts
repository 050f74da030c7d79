import { stat } from 'node:fs/promises'
import { fail } from './errors.ts'
import { isStorageError, type Store } from '../storage/types.ts'

/** `attachment; filename="ascii"; filename*=UTF-8''utf8` so every browser keeps the readable name. */
export function attachment(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`)}`
}

/** The answer when the store cannot be reached (or refuses a read): never a 500, never a hang. */
export function storageUnavailable(): Response {
  return new Response(JSON.stringify({ detail: 'Storage is unavailable.' }), {
    status: 503,
    headers: { 'Content-Type': 'application/json', 'Retry-After': '10', 'Cache-Control': 'no-store' },
  })
}

export interface SendOpts {
  filename: string
  type: string
  /** `inline` (played in the page, e.g. <audio>) rather than a download. */
  inline?: boolean
  /**
   * S3_PRESIGN=on on an /api route that has authorised the request: a GET
   * answers 302 to a presigned URL (at most 300 s). HEAD always passes
   * through; /rest and /feeds never set this (many players follow no redirect).
   */
  presign?: boolean
}

const PRESIGN_SECONDS = 300

/**
 * A file as a download: Content-Disposition attachment, and one byte range
 * when asked (206 with Content-Range; 416 when it cannot be satisfied).
 * Multi-range requests get the whole file, which RFC 9110 allows.
 */
export async function sendFile(req: Request, path: string, opts: SendOpts): Promise<Response> {
  const info = await stat(path).catch(() => null)
  if (!info?.isFile()) fail(404, 'File not found.')
  const file = Bun.file(path)
  return answer(req, { size: info.size, lastModified: info.mtime }, opts, async (range) =>
    range ? file.slice(range.start, range.end + 1) : file,
  )
}

/**
 * A stored file (src/storage), answered exactly as sendFile answers a file on
 * disk, from either store: the same ranges, 416, HEAD and headers. The store
 * unreachable: 503 `Storage is unavailable.` with Retry-After.
 */
export async function sendStored(req: Request, store: Store, key: string, opts: SendOpts): Promise<Response> {
  try {
    const local = store.localPath(key)
    if (local) return await sendFile(req, local, opts)
    const info = await store.head(key)
    if (!info) fail(404, 'File not found.')
    if (opts.presign && req.method === 'GET') {
      const url = store.presign(key, { seconds: PRESIGN_SECONDS, type: opts.type, disposition: opts.inline ? 'inline' : attachment(opts.filename) })
      if (url) return new Response(null, { status: 302, headers: { Location: url, 'Cache-Control': 'private, no-store' } })
    }
    return await answer(req, info, opts, async (range) => {
      // the store answered HEAD just now: its bytes are streamed by the runtime as they are read
      if (!info.cached) return store.open(key, range)
      // a kept HEAD proves nothing about now: the first bytes are read before the answer starts
      const got = await store.get(key, range, info)
      if (!got) fail(404, 'File not found.')
      return got.body
    })
  } catch (err) {
    if (isStorageError(err)) return storageUnavailable()
    throw err
  }
}

async function answer(
  req: Request,
  info: { size: number; lastModified: Date },
  opts: SendOpts,
  open: (range?: { start: number; end: number }) => Promise<BodyInit>,
): Promise<Response> {
  const size = info.size
  const headers = new Headers({
    'Content-Type': opts.type,
    'Content-Disposition': opts.inline ? 'inline' : attachment(opts.filename),
    'Accept-Ranges': 'bytes',
    'Cache-Control': 'private, no-store',
    'Last-Modified': info.lastModified.toUTCString(),
  })
  const range = req.headers.get('range')
  const ifRange = req.headers.get('if-range')
  const rangeApplies = range && (!ifRange || ifRange === headers.get('Last-Modified'))
  if (rangeApplies) {
    const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim())
    if (m && (m[1] || m[2])) {
      let start: number
      let end: number
      if (!m[1]) {
        // suffix: the last N bytes
        start = Math.max(0, size - Number(m[2]))
        end = size - 1
      } else {
        start = Number(m[1])
        end = m[2] ? Math.min(Number(m[2]), size - 1) : size - 1
      }
      if (start >= size || start > end || size === 0) {
        headers.set('Content-Range', `bytes */${size}`)
        headers.delete('Content-Disposition')
        headers.set('Content-Type', 'application/json')
        return new Response(JSON.stringify({ detail: 'Range Not Satisfiable.' }), { status: 416, headers })
      }
      headers.set('Content-Range', `bytes ${start}-${end}/${size}`)
      headers.set('Content-Length', String(end - start + 1))
      return new Response(req.method === 'HEAD' ? null : await open({ start, end }), { status: 206, headers })
    }
  }
  headers.set('Content-Length', String(size))
  return new Response(req.method === 'HEAD' ? null : await open(), { status: 200, headers })
}
