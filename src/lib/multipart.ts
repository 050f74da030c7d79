import { open } from 'node:fs/promises'
import { fail } from './errors.ts'

/**
 * A streaming multipart/form-data reader: parts are read one after another
 * straight from the request body, file bodies written to disk chunk by
 * chunk, so memory stays at a chunk or two whatever the upload's size
 * (Hono's parseBody/formData would hold the whole body).
 *
 * ```ts
 * const form = MultipartReader.from(c.req.raw)
 * for (let part; (part = await form.next()); ) {
 *   if (part.filename !== undefined) await form.saveTo(path, limit)
 *   else fields[part.name] = await form.text(limit)
 * }
 * ```
 */
export interface PartInfo {
  name: string
  /** Present for file parts (possibly empty when a browser sends no file). */
  filename?: string
  contentType?: string
}

export class MalformedMultipart extends Error {}

const MAX_HEADER_BYTES = 16 * 1024
/**
 * Each body chunk is garbage once written, but next to a large heap (PGlite)
 * the collector lets hundreds of MB of them pile up before it runs: a 200 MB
 * upload grew the server by 200 MB. A collection hint every 16 MB keeps it flat
 * (docs/decisions/012-streamed-uploads.md).
 */
const COLLECT_EVERY_BYTES = 16 * 1024 * 1024
const collectGarbage = () => (typeof Bun !== 'undefined' ? Bun.gc(false) : undefined)
const CRLF = Buffer.from('\r\n')

export class MultipartReader {
  private buf: Buffer
  private readonly delimiter: Buffer
  private state: 'preamble' | 'after-delimiter' | 'body' | 'end' = 'preamble'
  private ended = false

  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    boundary: string,
  ) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`)
    // the first delimiter has no CRLF before it: pretend it had one
    this.buf = Buffer.from(CRLF)
  }

  /** 415 unless the request is multipart/form-data with a boundary; 422 without a body. */
  static from(req: Request): MultipartReader {
    const type = req.headers.get('content-type') ?? ''
    const boundary = /^multipart\/form-data\s*;(?:.*;)?\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(type)
    if (!boundary) fail(415, 'Expected multipart/form-data.')
    if (!req.body) fail(422, 'body: Required')
    const value = boundary[1] ?? boundary[2]!
    if (value.length > 200) fail(422, 'Invalid multipart boundary.')
    return new MultipartReader(req.body.getReader(), value)
  }

  /** Next part's headers, skipping whatever is left of the current one; null after the last. */
  async next(): Promise<PartInfo | null> {
    while (this.state === 'body') await this.read()
    if (this.state === 'preamble') await this.skipTo()
    if ((this.state as string) === 'end') return null
    // after a delimiter: "--" ends the body, otherwise CRLF then headers
    await this.fill(2)
    if (this.buf[0] === 0x2d && this.buf[1] === 0x2d) {
      this.state = 'end'
      await this.reader.cancel().catch(() => {})
      return null
    }
    let end: number
    while ((end = this.buf.indexOf('\r\n\r\n')) < 0) {
      if (this.buf.length > MAX_HEADER_BYTES) throw new MalformedMultipart('part headers too large')
      if (!(await this.pull())) throw new MalformedMultipart('unexpected end in part headers')
    }
    const head = this.buf.subarray(0, end).toString('utf8')
    this.buf = this.buf.subarray(end + 4)
    this.state = 'body'
    return parseHeaders(head)
  }

  /** Next chunk of the current part's body; null at its end. */
  async read(): Promise<Uint8Array | null> {
    for (;;) {
      if (this.state !== 'body') return null
      const at = this.buf.indexOf(this.delimiter)
      if (at >= 0) {
        const chunk = this.buf.subarray(0, at)
        this.buf = this.buf.subarray(at + this.delimiter.length)
        this.state = 'after-delimiter'
        if (chunk.length) return chunk
        return null
      }
      // keep only a tail that could be the start of a delimiter split across chunks
      // (usually none, so the next chunk is used as it comes, without a copy)
      const safe = this.buf.length - this.partialDelimiterAtEnd()
      if (safe > 0) {
        const chunk = this.buf.subarray(0, safe)
        this.buf = this.buf.subarray(safe)
        return chunk
      }
      if (!(await this.pull())) throw new MalformedMultipart('unexpected end of body')
    }
  }

  /** The current part as text; 413 past `maxBytes`. */
  async text(maxBytes: number, field = 'field'): Promise<string> {
    const chunks: Uint8Array[] = []
    let size = 0
    for (let chunk; (chunk = await this.read()); ) {
      size += chunk.length
      if (size > maxBytes) fail(413, `${field}: too large.`)
      chunks.push(chunk)
    }
    return Buffer.concat(chunks).toString('utf8')
  }

  /**
   * Streams the current part into `path`; returns its size and first bytes.
   * Throws `TooLarge` past `maxBytes` (the caller removes the file).
   */
  async saveTo(path: string, maxBytes: number): Promise<{ size: number; head: Uint8Array }> {
    const file = await open(path, 'w')
    let size = 0
    const head = new Uint8Array(16)
    let headLength = 0
    let sinceCollect = 0
    try {
      for (let chunk; (chunk = await this.read()); ) {
        size += chunk.length
        if (size > maxBytes) throw new TooLarge()
        if (headLength < head.length) {
          const take = chunk.subarray(0, head.length - headLength)
          head.set(take, headLength)
          headLength += take.length
        }
        await file.write(chunk)
        sinceCollect += chunk.length
        if (sinceCollect >= COLLECT_EVERY_BYTES) {
          sinceCollect = 0
          collectGarbage()
        }
      }
    } finally {
      await file.close()
    }
    return { size, head: head.subarray(0, headLength) }
  }

  /** Stops reading the body (e.g. after a validation error). */
  async cancel() {
    this.state = 'end'
    await this.reader.cancel().catch(() => {})
  }

  /** Length of the longest end of `buf` that is a beginning of the delimiter. */
  private partialDelimiterAtEnd(): number {
    const max = Math.min(this.delimiter.length - 1, this.buf.length)
    for (let k = max; k > 0; k--) {
      const start = this.buf.length - k
      if (this.buf[start] === 0x0d && this.buf.subarray(start).equals(this.delimiter.subarray(0, k))) return k
    }
    return 0
  }

  private async skipTo() {
    for (;;) {
      const at = this.buf.indexOf(this.delimiter)
      if (at >= 0) {
        this.buf = this.buf.subarray(at + this.delimiter.length)
        this.state = 'after-delimiter'
        return
      }
      if (this.buf.length > MAX_HEADER_BYTES) throw new MalformedMultipart('no multipart boundary found')
      if (!(await this.pull())) {
        this.state = 'end'
        return
      }
    }
  }

  private async fill(bytes: number) {
    while (this.buf.length < bytes) {
      if (!(await this.pull())) throw new MalformedMultipart('unexpected end of body')
    }
  }

  private async pull(): Promise<boolean> {
    if (this.ended) return false
    let done: boolean
    let value: Uint8Array | undefined
    try {
      ;({ done, value } = await this.reader.read())
    } catch (err) {
      if (err instanceof TooLarge) throw err
      // the client went away or the body broke mid-way
      throw new MalformedMultipart('body could not be read')
    }
    if (done) {
      this.ended = true
      return false
    }
    if (!value) return true
    this.buf = this.buf.length ? Buffer.concat([this.buf, value]) : Buffer.from(value.buffer, value.byteOffset, value.byteLength)
    return true
  }
}

export class TooLarge extends Error {}

function parseHeaders(head: string): PartInfo {
  let name: string | undefined
  let filename: string | undefined
  let contentType: string | undefined
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon < 0) continue
    const key = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    if (key === 'content-type') contentType = value
    if (key === 'content-disposition') {
      name = param(value, 'name')
      filename = param(value, 'filename*') ?? param(value, 'filename')
    }
  }
  if (name === undefined) throw new MalformedMultipart('part without a name')
  return { name, filename, contentType }
}

function param(header: string, key: string): string | undefined {
  const escaped = key.replace('*', '\\*')
  const m = new RegExp(`(?:^|;)\\s*${escaped}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;]*))`, 'i').exec(header)
  if (!m) return undefined
  if (m[1] !== undefined) return m[1].replace(/\\(.)/g, '$1')
  const raw = m[2]!.trim()
  if (key.endsWith('*')) {
    // RFC 5987: utf-8''percent-encoded
    const ext = /^([\w-]+)'[^']*'(.*)$/.exec(raw)
    try {
      return ext ? decodeURIComponent(ext[2]!) : raw
    } catch {
      return raw
    }
  }
  return raw
}

/** Room for the text fields (an artwork data URI among them) beside an upload of MAX_UPLOAD_BYTES. */
export const MULTIPART_FIELDS_ALLOWANCE = 16 * 1024 * 1024

/**
 * Body limit for streamed uploads: a declared Content-Length over `maxSize`
 * is refused at once; a chunked body is counted as it streams and fails with
 * 413 when it passes `maxSize`. Nothing is buffered (hono's bodyLimit holds
 * a chunked body in memory to measure it).
 */
export function limitStreamedBody(req: Request, maxSize: number): Request {
  const declared = req.headers.get('content-length')
  if (declared !== null && !req.headers.has('transfer-encoding')) {
    if (Number(declared) > maxSize) fail(413, 'Request body is too large.')
    return req
  }
  if (!req.body) return req
  let size = 0
  const counted = req.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        size += chunk.length
        if (size > maxSize) controller.error(new TooLarge())
        else controller.enqueue(chunk)
      },
    }),
  )
  return new Request(req, { body: counted, duplex: 'half' } as RequestInit)
}
