import { stat } from 'node:fs/promises'
import { fail } from './errors.ts'

/** `attachment; filename="ascii"; filename*=UTF-8''utf8` so every browser keeps the readable name. */
export function attachment(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`)}`
}

/**
 * A file as a download: Content-Disposition attachment, and one byte range
 * when asked (206 with Content-Range; 416 when it cannot be satisfied).
 * Multi-range requests get the whole file, which RFC 9110 allows.
 */
export async function sendFile(
  req: Request,
  path: string,
  opts: { filename: string; type: string; /** `inline` (played in the page, e.g. <audio>) rather than a download. */ inline?: boolean },
): Promise<Response> {
  const info = await stat(path).catch(() => null)
  if (!info?.isFile()) fail(404, 'File not found.')
  const size = info.size
  const headers = new Headers({
    'Content-Type': opts.type,
    'Content-Disposition': opts.inline ? 'inline' : attachment(opts.filename),
    'Accept-Ranges': 'bytes',
    'Cache-Control': 'private, no-store',
    'Last-Modified': info.mtime.toUTCString(),
  })
  const file = Bun.file(path)
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
      return new Response(req.method === 'HEAD' ? null : file.slice(start, end + 1), { status: 206, headers })
    }
  }
  headers.set('Content-Length', String(size))
  return new Response(req.method === 'HEAD' ? null : file, { status: 200, headers })
}
