import { readdir, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import type { AppContext } from '../context.ts'
import { fail } from '../lib/errors.ts'
import { isStorageError } from '../storage/types.ts'
import { countUnfinishedMusicJobs } from './queries.ts'

/**
 * Per-user bounds on music work (docs/decisions/082): jobs waiting or running
 * at once (MAX_JOBS_PER_USER, 429) and bytes on disk (MAX_STORED_BYTES_PER_USER,
 * 413). Answers how many bytes a new upload may still take.
 */
export async function assertRoomForJob(ctx: AppContext, userId: string): Promise<number> {
  const { env } = ctx
  const running = await countUnfinishedMusicJobs(ctx.db, userId)
  if (running >= env.MAX_JOBS_PER_USER)
    fail(429, `You have ${running} jobs waiting or running (at most ${env.MAX_JOBS_PER_USER}): wait for some to finish, then try again.`)
  // STORAGE=s3: the bucket's files plus the passing work on this machine's disk
  let used = await storedBytes(env.DATA_DIR, userId)
  if (ctx.storage.store.kind !== 'local') {
    try {
      for await (const o of ctx.storage.store.list(`music/${userId}/`)) used += o.size
    } catch (err) {
      // the store down: the upload is still taken (held as passing work), counted on disk only
      if (!isStorageError(err)) throw err
    }
  }
  if (used >= env.MAX_STORED_BYTES_PER_USER)
    fail(413, `Your files take ${size(used)} of the ${size(env.MAX_STORED_BYTES_PER_USER)} you may store: delete some jobs to make room.`)
  return env.MAX_STORED_BYTES_PER_USER - used
}

/**
 * Room for `count` more jobs at once (a playlist: one job per entry), checked
 * before any is created, so a refused playlist leaves nothing behind (decision 162).
 */
export async function assertRoomForJobs(ctx: AppContext, userId: string, count: number): Promise<void> {
  const max = ctx.env.MAX_JOBS_PER_USER
  const running = await countUnfinishedMusicJobs(ctx.db, userId)
  if (running + count > max) {
    const room = Math.max(0, max - running)
    fail(
      429,
      `This playlist would make ${count} jobs, but you have room for ${room} more (${running} waiting or running, at most ${max}): no job was created. Wait for some to finish, or use a shorter playlist.`,
    )
  }
}

/** Bytes under DATA_DIR/music/<userId> (every job's upload, artwork and output). */
export async function storedBytes(dataDir: string, userId: string): Promise<number> {
  const walk = async (dir: string): Promise<number> => {
    let total = 0
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
    for (const entry of entries) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) total += await walk(path)
      else if (entry.isFile()) total += (await stat(path).catch(() => ({ size: 0 }))).size
    }
    return total
  }
  return walk(resolve(dataDir, 'music', userId))
}

export const size = (bytes: number) =>
  bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)} GB` : bytes >= 1024 ** 2 ? `${(bytes / 1024 ** 2).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`

/**
 * At most `overall` calls at once, and `perUser` per user; a call beyond is
 * refused at once (429) rather than queued: the caller holds an upload open.
 */
export class CallLimit {
  private total = 0
  private readonly byUser = new Map<string, number>()
  constructor(
    private readonly overall: number,
    private readonly perUser: number,
  ) {}

  /** The release function, or a 429. */
  enter(userId: string): () => void {
    const mine = this.byUser.get(userId) ?? 0
    if (mine >= this.perUser || this.total >= this.overall) fail(429, 'Too many files are being read at once: try again in a moment.')
    this.total++
    this.byUser.set(userId, mine + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      this.total--
      const left = (this.byUser.get(userId) ?? 1) - 1
      if (left > 0) this.byUser.set(userId, left)
      else this.byUser.delete(userId)
    }
  }
}
