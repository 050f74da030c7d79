import { randomUUID } from 'node:crypto'
import { copyFile, mkdir, readdir, rename, rm, stat, unlink } from 'node:fs/promises'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { createWriteStream } from 'node:fs'
import { Readable } from 'node:stream'
import { type Store, type StoredInfo, storageKey } from './types.ts'

/**
 * The embedded default: objects are files under DATA_DIR at their key, so
 * everything stays where it was before the seam (an existing data folder is
 * served as it is). Writes land under a temporary name and are renamed, so a
 * reader never sees half a file.
 */
export class LocalStore implements Store {
  readonly kind = 'local' as const
  private readonly root: string
  /** Top folders kept elsewhere on disk (`videos` → KEEP_DIR, where media servers read it). */
  private readonly mounts: Map<string, string>

  constructor(dataDir: string, mounts: Record<string, string> = {}) {
    this.root = resolve(dataDir)
    this.mounts = new Map(Object.entries(mounts).map(([top, dir]) => [top, resolve(dir)]))
  }

  /** The folder holding `key` and the key's path inside it. */
  private place(key: string): { root: string; rest: string; top: string | null } {
    const k = storageKey(key)
    const slash = k.indexOf('/')
    const top = slash < 0 ? k : k.slice(0, slash)
    const mounted = this.mounts.get(top)
    if (mounted) return { root: mounted, rest: slash < 0 ? '' : k.slice(slash + 1), top }
    return { root: this.root, rest: k, top: null }
  }

  localPath(key: string): string {
    const { root, rest } = this.place(key)
    const full = resolve(root, rest)
    if (full !== root && !full.startsWith(root + sep)) throw new Error(`key ${key} escapes the data folder`)
    return full
  }

  /** The key of a file found on disk under `root` (a mount's files get its top folder back). */
  private keyOf(full: string): string {
    for (const [top, dir] of this.mounts) if (full.startsWith(dir + sep)) return `${top}/${relative(dir, full).split(sep).join('/')}`
    return relative(this.root, full).split(sep).join('/')
  }

  private async landing(key: string): Promise<{ target: string; tmp: string }> {
    const target = this.localPath(key)
    await mkdir(dirname(target), { recursive: true })
    return { target, tmp: join(dirname(target), `.part-${randomUUID()}`) }
  }

  async putFile(key: string, path: string, opts: { move?: boolean } = {}): Promise<void> {
    const { target, tmp } = await this.landing(key)
    if (resolve(path) === target) return
    try {
      if (opts.move) {
        try {
          await rename(path, target)
          return
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err
        }
      }
      await copyFile(path, tmp)
      await rename(tmp, target)
      if (opts.move) await unlink(path).catch(() => {})
    } finally {
      await rm(tmp, { force: true })
    }
  }

  async put(key: string, data: Uint8Array | ReadableStream<Uint8Array>): Promise<void> {
    const { target, tmp } = await this.landing(key)
    try {
      if (data instanceof Uint8Array) await Bun.write(tmp, data)
      // biome-ignore lint/suspicious/noExplicitAny: web to node stream
      else await pipeline(Readable.fromWeb(data as any), createWriteStream(tmp))
      await rename(tmp, target)
    } finally {
      await rm(tmp, { force: true })
    }
  }

  async head(key: string): Promise<StoredInfo | null> {
    const info = await stat(this.localPath(key)).catch(() => null)
    if (!info?.isFile()) return null
    return { size: info.size, type: null, lastModified: info.mtime, etag: null }
  }

  async get(key: string, range?: { start: number; end: number }, known?: StoredInfo) {
    const info = known ?? (await this.head(key))
    if (!info) return null
    const file = Bun.file(this.localPath(key))
    return { info, body: (range ? file.slice(range.start, range.end + 1) : file).stream() }
  }

  open(key: string, range?: { start: number; end: number }): Blob {
    const file = Bun.file(this.localPath(key))
    return range ? file.slice(range.start, range.end + 1) : file
  }

  async delete(key: string): Promise<void> {
    await rm(this.localPath(key), { force: true })
  }

  async deletePrefix(prefix: string): Promise<void> {
    await rm(this.localPath(prefix), { recursive: true, force: true })
  }

  async *list(prefix: string): AsyncIterable<{ key: string; size: number }> {
    const base = prefix.endsWith('/') ? this.localPath(prefix) : dirname(this.localPath(`${prefix}x`))
    const walk = async function* (dir: string): AsyncIterable<string> {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
      for (const e of entries) {
        const full = join(dir, e.name)
        if (e.isDirectory()) yield* walk(full)
        else if (e.isFile() && !e.name.startsWith('.part-')) yield full
      }
    }
    for await (const full of walk(base)) {
      const key = this.keyOf(full)
      if (!key.startsWith(prefix)) continue
      const info = await stat(full).catch(() => null)
      if (info) yield { key, size: info.size }
    }
  }

  presign(): null {
    return null
  }

  async ping(): Promise<void> {
    await mkdir(this.root, { recursive: true })
  }
}
