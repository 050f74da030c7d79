import type { S3Client } from 'bun'
import { type Store, StorageRefused, StorageUnavailable, type StoredInfo, storageKey } from './types.ts'

export interface S3Config {
  endpoint: string
  bucket: string
  region: string
  accessKeyId: string
  secretAccessKey: string
  prefix: string
  virtualHostedStyle: boolean
}

/** A metadata call's limit; a first byte's; an upload's base plus a second per MiB (never a hang). */
const CALL_MS = 10_000
const FIRST_BYTE_MS = 20_000
const UPLOAD_BASE_MS = 60_000
const HEAD_TTL_MS = 10_000

/** Store codes that mean "not reachable now" rather than "refused". */
const UNAVAILABLE = new Set([
  'ConnectionRefused',
  'ConnectionClosed',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'UnknownError',
  'InternalError',
  'ServiceUnavailable',
  'SlowDown',
  'RequestTimeout',
  'RequestTimeTooSkewed',
  'TimeoutError',
])

const MISSING = new Set(['NoSuchKey', 'NotFound', 'ENOENT'])

/** The storage error for a failed call; messages name the operation and the store's code, never a key or secret. */
export function classify(err: unknown, op: string): StorageUnavailable | StorageRefused {
  if (err instanceof StorageUnavailable || err instanceof StorageRefused) return err
  const code = String((err as { code?: unknown })?.code ?? (err as { name?: unknown })?.name ?? 'UnknownError')
  if (UNAVAILABLE.has(code) || /^E[A-Z]+$/.test(code)) return new StorageUnavailable(`The store did not answer ${op} (${code}).`)
  return new StorageRefused(`The store refused ${op} (${code}).`, code)
}

const isMissing = (err: unknown) => MISSING.has(String((err as { code?: unknown })?.code))

async function bounded<T>(ms: number, op: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StorageUnavailable(`The store did not answer ${op} within ${Math.round(ms / 1000)} s.`)), ms)
  })
  try {
    return await Promise.race([work, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * An S3-compatible bucket through Bun's own client (SigV4, multipart uploads
 * for large files, presigning). Keys get S3_PREFIX as given. Every call is
 * bounded in time and its failure is a StorageUnavailable or StorageRefused.
 */
export class S3Store implements Store {
  readonly kind = 's3' as const
  private readonly client: S3Client
  readonly prefix: string

  constructor(cfg: S3Config) {
    this.prefix = cfg.prefix
    this.client = new Bun.S3Client({
      endpoint: cfg.endpoint,
      bucket: cfg.bucket,
      region: cfg.region,
      accessKeyId: cfg.accessKeyId,
      secretAccessKey: cfg.secretAccessKey,
      virtualHostedStyle: cfg.virtualHostedStyle,
    })
  }

  private k(key: string): string {
    return this.prefix + storageKey(key)
  }

  async putFile(key: string, path: string, opts: { type?: string } = {}): Promise<void> {
    this.heads.delete(key)
    const file = Bun.file(path)
    const ms = UPLOAD_BASE_MS + Math.ceil(file.size / 1024 ** 2) * 1000
    try {
      await bounded(ms, 'an upload', this.client.write(this.k(key), file, { type: opts.type }))
    } catch (err) {
      throw classify(err, 'an upload')
    }
  }

  async put(key: string, data: Uint8Array | ReadableStream<Uint8Array>, opts: { type?: string } = {}): Promise<void> {
    this.heads.delete(key)
    const body = data instanceof Uint8Array ? data : new Response(data)
    try {
      await bounded(UPLOAD_BASE_MS * 10, 'an upload', this.client.write(this.k(key), body, { type: opts.type }))
    } catch (err) {
      throw classify(err, 'an upload')
    }
  }

  /**
   * HEAD answers kept a few seconds (the first byte of a range then costs one call, not two).
   * An object changes under the same key only by a tag edit (dropped here at once; on another
   * machine seen at most HEAD_TTL_MS late); a missing object is never kept.
   */
  private readonly heads = new Map<string, { info: StoredInfo; at: number }>()

  async head(key: string): Promise<StoredInfo | null> {
    const kept = this.heads.get(key)
    if (kept && Date.now() - kept.at < HEAD_TTL_MS) return { ...kept.info, cached: true }
    try {
      const s = await bounded(CALL_MS, 'a metadata read', this.client.stat(this.k(key)))
      const info = { size: s.size, type: s.type || null, lastModified: s.lastModified, etag: s.etag || null }
      if (this.heads.size >= 10_000) this.heads.clear()
      this.heads.set(key, { info, at: Date.now() })
      return info
    } catch (err) {
      this.heads.delete(key)
      if (isMissing(err)) return null
      // a HEAD answer has no body, so Bun names every failure UnknownError: one ranged GET tells which it was
      if ((err as { code?: string })?.code === 'UnknownError' && !(err instanceof StorageUnavailable)) {
        try {
          await bounded(CALL_MS, 'a read', this.client.file(this.k(key)).slice(0, 1).arrayBuffer())
        } catch (again) {
          if (isMissing(again)) return null
          throw classify(again, 'a metadata read')
        }
      }
      throw classify(err, 'a metadata read')
    }
  }

  async get(key: string, range?: { start: number; end: number }, known?: StoredInfo) {
    const info = known ?? (await this.head(key))
    if (!info) return null
    const file = this.client.file(this.k(key))
    const part = range ? file.slice(range.start, range.end + 1) : file
    if (info.size === 0 || (range && range.end < range.start)) return { info, body: new Response(new Uint8Array(0)).body! }
    const reader = part.stream().getReader()
    // the first chunk is waited for here, so a store that fails answers 503 rather than a broken 200
    let first: { done: boolean; value?: Uint8Array }
    try {
      first = await bounded(FIRST_BYTE_MS, 'a read', reader.read())
    } catch (err) {
      reader.cancel().catch(() => {})
      if (isMissing(err)) return null
      throw classify(err, 'a read')
    }
    let sentFirst = false
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (!sentFirst) {
          sentFirst = true
          if (first.done) controller.close()
          else controller.enqueue(first.value!)
          return
        }
        const next = await reader.read()
        if (next.done) controller.close()
        else controller.enqueue(next.value)
      },
      cancel(reason) {
        return reader.cancel(reason)
      },
    })
    return { info, body }
  }

  open(key: string, range?: { start: number; end: number }): ReadableStream<Uint8Array> {
    const file = this.client.file(this.k(key))
    // Bun takes an S3 file as a Response body only without status or headers: its stream, then
    return (range ? file.slice(range.start, range.end + 1) : file).stream()
  }

  async delete(key: string): Promise<void> {
    this.heads.delete(key)
    try {
      await bounded(CALL_MS, 'a delete', this.client.delete(this.k(key)))
    } catch (err) {
      if (isMissing(err)) return
      throw classify(err, 'a delete')
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    const keys: string[] = []
    for await (const o of this.list(prefix)) keys.push(o.key)
    // one by one: some stores (s3rver) answer 500 to concurrent batch deletes
    for (const key of keys) await this.delete(key)
  }

  async *list(prefix: string): AsyncIterable<{ key: string; size: number }> {
    let token: string | undefined
    do {
      let page: Awaited<ReturnType<S3Client['list']>>
      try {
        page = await bounded(CALL_MS, 'a listing', this.client.list({ prefix: this.prefix + prefix, continuationToken: token, maxKeys: 1000 }))
      } catch (err) {
        throw classify(err, 'a listing')
      }
      for (const o of page.contents ?? []) if (o.key.startsWith(this.prefix)) yield { key: o.key.slice(this.prefix.length), size: o.size ?? 0 }
      token = page.isTruncated ? page.nextContinuationToken : undefined
    } while (token)
  }

  presign(key: string, opts: { seconds: number; type?: string; disposition?: string }): string {
    return this.client.presign(this.k(key), {
      method: 'GET',
      expiresIn: Math.min(300, Math.max(1, Math.floor(opts.seconds))),
      type: opts.type,
      contentDisposition: opts.disposition,
    })
  }

  localPath(): null {
    return null
  }

  async ping(): Promise<void> {
    try {
      await bounded(CALL_MS, 'a listing', this.client.list({ prefix: this.prefix, maxKeys: 1 }))
    } catch (err) {
      throw classify(err, 'a listing')
    }
  }
}
