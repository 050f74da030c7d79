import { createWriteStream } from 'node:fs'
import { mkdir, rename, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Env } from '../env.ts'
import { log } from '../lib/logger.ts'
import { LocalStore } from './local.ts'
import { S3Store } from './s3.ts'
import { isStorageError, type Store, StorageUnavailable } from './types.ts'

export * from './types.ts'

/** What GET /api/admin/status says of the store (never a key). */
export interface StorageStatus {
  kind: Store['kind']
  endpoint: string | null
  bucket: string | null
  ok: boolean
  checkedAt: string | null
  lastError: string | null
}

const CHECK_EVERY_MS = 60_000

/**
 * The app's store and its health: every call that fails with a storage error
 * marks the store not ok and schedules a check; a check runs at least every
 * 60 s while the process serves (`start`).
 */
export class Storage {
  readonly store: Store
  private state: StorageStatus
  private timer: ReturnType<typeof setInterval> | null = null
  private checking: Promise<void> | null = null
  private recheck: ReturnType<typeof setTimeout> | null = null

  constructor(raw: Store, meta: { endpoint: string | null; bucket: string | null }) {
    this.state = { kind: raw.kind, ...meta, ok: true, checkedAt: null, lastError: null }
    this.store = this.tracked(raw)
  }

  status(): StorageStatus {
    return { ...this.state }
  }

  /** One check now (shared by callers while it runs). */
  check(): Promise<void> {
    this.checking ??= this.raw
      .ping()
      .then(
        () => {
          this.state = { ...this.state, ok: true, checkedAt: new Date().toISOString() }
        },
        (err) => {
          this.state = { ...this.state, ok: false, checkedAt: new Date().toISOString(), lastError: errorSentence(err) }
        },
      )
      .finally(() => {
        this.checking = null
      })
    return this.checking
  }

  /** A check unless the last one is younger than `maxAgeMs`. */
  async fresh(maxAgeMs: number): Promise<void> {
    const at = this.state.checkedAt ? Date.parse(this.state.checkedAt) : 0
    if (Date.now() - at >= maxAgeMs) await this.check()
  }

  start(): void {
    if (this.timer) return
    void this.check()
    this.timer = setInterval(() => void this.check(), CHECK_EVERY_MS)
    this.timer.unref?.()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    if (this.recheck) clearTimeout(this.recheck)
    this.timer = null
    this.recheck = null
  }

  private raw!: Store

  private failed(err: unknown) {
    if (!isStorageError(err)) return
    this.state = { ...this.state, ok: false, checkedAt: new Date().toISOString(), lastError: errorSentence(err) }
    if (this.recheck) return
    // the check after a failure: soon, once (a store back up reads ok again)
    this.recheck = setTimeout(() => {
      this.recheck = null
      void this.check()
    }, 5000)
    this.recheck.unref?.()
  }

  private tracked(raw: Store): Store {
    this.raw = raw
    const watch = <T>(p: Promise<T>): Promise<T> =>
      p.catch((err) => {
        this.failed(err)
        throw err
      })
    const failed = (err: unknown) => this.failed(err)
    return {
      kind: raw.kind,
      putFile: (...a) => watch(raw.putFile(...a)),
      put: (...a) => watch(raw.put(...a)),
      head: (...a) => watch(raw.head(...a)),
      get: (...a) => watch(raw.get(...a)),
      delete: (...a) => watch(raw.delete(...a)),
      deletePrefix: (...a) => watch(raw.deletePrefix(...a)),
      list: (prefix) =>
        (async function* () {
          try {
            yield* raw.list(prefix)
          } catch (err) {
            failed(err)
            throw err
          }
        })(),
      presign: (...a) => raw.presign(...a),
      open: (...a) => raw.open(...a),
      localPath: (key) => raw.localPath(key),
      ping: () => watch(raw.ping()),
    }
  }
}

function errorSentence(err: unknown): string {
  return err instanceof Error ? err.message : 'The store failed.'
}

/** The store STORAGE names (the S3_* settings are checked by src/env.ts). */
export function createStorage(env: Env, kind: Env['STORAGE'] = env.STORAGE): Storage {
  if (kind === 's3') {
    if (!env.S3_ENDPOINT || !env.S3_BUCKET || !env.S3_ACCESS_KEY_ID || !env.S3_SECRET_ACCESS_KEY)
      throw new Error('STORAGE=s3 needs S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY')
    const store = new S3Store({
      endpoint: env.S3_ENDPOINT,
      bucket: env.S3_BUCKET,
      region: env.S3_REGION,
      accessKeyId: env.S3_ACCESS_KEY_ID,
      secretAccessKey: env.S3_SECRET_ACCESS_KEY,
      prefix: env.S3_PREFIX,
      virtualHostedStyle: env.S3_VIRTUAL_HOSTED_STYLE,
    })
    return new Storage(store, { endpoint: env.S3_ENDPOINT, bucket: env.S3_BUCKET })
  }
  // kept videos stay where media servers read them (KEEP_DIR), under the key `videos/...`
  return new Storage(new LocalStore(env.DATA_DIR, { videos: env.KEEP_DIR ?? join(env.DATA_DIR, 'videos') }), { endpoint: null, bucket: null })
}

/** Copies a stored object to `path` (whole or not at all); false when there is no such object. */
export async function saveToDisk(store: Store, key: string, path: string): Promise<boolean> {
  const got = await store.get(key)
  if (!got) return false
  await mkdir(dirname(path), { recursive: true })
  const tmp = `${path}.fetch-${crypto.randomUUID()}`
  try {
    // biome-ignore lint/suspicious/noExplicitAny: web to node stream
    await pipeline(Readable.fromWeb(got.body as any), createWriteStream(tmp))
    await rename(tmp, path)
  } finally {
    await rm(tmp, { force: true })
  }
  return true
}

/** Waits while the store is unreachable (jobs: "wait and retry for as long as it lasts"); a refusal is thrown. */
export async function whileUnavailable<T>(work: () => Promise<T>, opts: { signal?: AbortSignal; pauseMs?: number } = {}): Promise<T> {
  let pause = opts.pauseMs ?? 1000
  for (;;) {
    try {
      return await work()
    } catch (err) {
      if (!(err instanceof StorageUnavailable)) throw err
      opts.signal?.throwIfAborted()
      log.warn('storage unavailable, waiting', { error: err.message })
      await Bun.sleep(pause)
      pause = Math.min(pause * 2, 30_000)
    }
  }
}
