/**
 * The storage seam: every file the app keeps (finished tracks and ZIPs,
 * uploaded originals, artwork, the audio cache, podcast episodes) is put,
 * read and removed through a `Store`, local disk under DATA_DIR or an
 * S3-compatible bucket (docs/decisions/240-storage-seam.md).
 *
 * Keys are paths relative to DATA_DIR with `/` (`music/<user>/<job>/output/a.mp3`),
 * so the local store keeps every file exactly where it was before the seam.
 */
export interface StoredInfo {
  size: number
  /** The stored Content-Type, when the store keeps one. */
  type: string | null
  lastModified: Date
  etag: string | null
  /** The answer was kept from an earlier HEAD (the store was not asked just now). */
  cached?: boolean
}

export interface StoredBody {
  info: StoredInfo
  /** The bytes asked for: the whole object, or `start..end` inclusive. */
  body: ReadableStream<Uint8Array>
}

export type StorageKind = 'local' | 's3'

export interface Store {
  readonly kind: StorageKind
  /** Stores the file at `path` under `key` (whole or not at all); `move` lets the local store rename it. */
  putFile(key: string, path: string, opts?: { type?: string; move?: boolean }): Promise<void>
  /** Stores bytes or a stream under `key` (whole or not at all). */
  put(key: string, data: Uint8Array | ReadableStream<Uint8Array>, opts?: { type?: string }): Promise<void>
  /** Metadata, or null when there is no such object. */
  head(key: string): Promise<StoredInfo | null>
  /**
   * The object's bytes (a range when given, inclusive), or null when missing.
   * A store that cannot be reached fails here, before the first byte is
   * promised to anyone (StorageUnavailable), never mid-answer when avoidable.
   */
  get(key: string, range?: { start: number; end: number }, known?: StoredInfo): Promise<StoredBody | null>
  /**
   * The bytes of an object already known to exist (`head` just answered), for an answer's body:
   * no call is made until it is read, and the runtime streams it natively.
   */
  open(key: string, range?: { start: number; end: number }): Blob | ReadableStream<Uint8Array>
  /** Removes one object; a missing one is fine. */
  delete(key: string): Promise<void>
  /** Removes every object under `prefix` (a folder: ends with `/`). */
  deletePrefix(prefix: string): Promise<void>
  /** Every object under `prefix`, key and size. */
  list(prefix: string): AsyncIterable<{ key: string; size: number }>
  /** A URL anyone may GET for `seconds` (S3 only; null for the local store). */
  presign(key: string, opts: { seconds: number; type?: string; disposition?: string }): string | null
  /** Where the object is on this machine's disk, when the store is local (null for S3). */
  localPath(key: string): string | null
  /** A cheap call that proves the store answers (throws the storage errors below). */
  ping(): Promise<void>
}

/** The store could not be reached: connection refused, a timeout or a 5xx. Work waits and retries. */
export class StorageUnavailable extends Error {
  override name = 'StorageUnavailable'
}

/** The store answered but refused (a 4xx such as AccessDenied or NoSuchBucket). Retried a few times, then a failure. */
export class StorageRefused extends Error {
  override name = 'StorageRefused'
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message)
  }
}

export const isStorageError = (err: unknown): err is StorageUnavailable | StorageRefused =>
  err instanceof StorageUnavailable || err instanceof StorageRefused

/** `a/b` joined as a key: no leading `/`, no `.`/`..` segments, no backslashes or control characters. */
export function storageKey(...parts: string[]): string {
  const key = parts
    .join('/')
    .split('/')
    .filter((s) => s !== '' && s !== '.')
    .join('/')
  if (key.split('/').some((s) => s === '..') || /[\\\u0000-\u001f]/.test(key) || !key) throw new Error(`bad storage key ${JSON.stringify(key)}`)
  return key
}
