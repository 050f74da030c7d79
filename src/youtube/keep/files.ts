import { mkdir, rm, rmdir, statfs } from 'node:fs/promises'
import { dirname, join, relative, resolve, sep } from 'node:path'
import type { AppContext } from '../../context.ts'
import { sendStored } from '../../lib/send-file.ts'
import { whileUnavailable } from '../../storage/index.ts'
import { videoType } from './ytdlp-video.ts'

/**
 * Every file operation on kept videos goes through here, and through the storage seam
 * (src/storage, docs/decisions/242): a kept file's key is `videos/<path in the layout>`; the
 * local store keeps `videos/` in KEEP_DIR (where Jellyfin and Plex read it), S3 in the bucket
 * under S3_PREFIX. Paths are checked to stay inside KEEP_DIR; a file is written under a
 * temporary name and renamed (locally) or uploaded whole (S3), so nothing appears under its
 * final name until complete. A store that cannot be reached makes the fetch wait.
 */
export const keepRoot = (ctx: Pick<AppContext, 'env'>) => resolve(ctx.env.KEEP_DIR ?? join(ctx.env.DATA_DIR, 'videos'))

/** The store key of a path in the layout. */
export const keptKey = (rel: string) => `videos/${rel}`

type Ctx = Pick<AppContext, 'env' | 'storage'>

/** The absolute path of `rel`; throws when it would leave KEEP_DIR (a name is never trusted). */
export function keepPath(ctx: Pick<AppContext, 'env'>, rel: string): string {
  const root = keepRoot(ctx)
  const abs = resolve(root, rel)
  if (abs === root || !abs.startsWith(root + sep)) throw new Error(`kept path outside KEEP_DIR: ${JSON.stringify(rel)}`)
  return abs
}

/** Where a video's fetch works, always on this machine's disk (yt-dlp's `.part` files stay here between runs, so a fetch resumes). */
export const workDir = (ctx: Pick<AppContext, 'env'>, videoId: string) => join(keepRoot(ctx), '.work', videoId)

const TYPES: Record<string, string> = { nfo: 'text/xml; charset=utf-8', jpg: 'image/jpeg' }
const typeOf = (rel: string) => TYPES[rel.split('.').pop() ?? ''] ?? videoType(rel.split('.').pop() ?? '')

/** Writes `data` to `rel`, whole or not at all. */
export async function writeKept(ctx: Ctx, rel: string, data: string | Uint8Array, signal?: AbortSignal): Promise<void> {
  keepPath(ctx, rel)
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data
  await whileUnavailable(() => ctx.storage.store.put(keptKey(rel), bytes, { type: typeOf(rel) }), { signal })
}

/** Stores a finished file (from the work folder) at `rel`: renamed locally, uploaded once to S3. */
export async function moveIntoKept(ctx: Ctx, from: string, rel: string, signal?: AbortSignal): Promise<void> {
  keepPath(ctx, rel)
  await whileUnavailable(() => ctx.storage.store.putFile(keptKey(rel), from, { type: typeOf(rel), move: true }), { signal })
  await rm(from, { force: true })
}

export async function keptSize(ctx: Ctx, rel: string, signal?: AbortSignal): Promise<number | null> {
  keepPath(ctx, rel)
  return (await whileUnavailable(() => ctx.storage.store.head(keptKey(rel)), { signal }))?.size ?? null
}

/** Removes `rel` (gone already is fine); locally, its folders up to KEEP_DIR too while they are empty. */
export async function removeKept(ctx: Ctx, rel: string): Promise<void> {
  keepPath(ctx, rel)
  await ctx.storage.store.delete(keptKey(rel))
  const local = ctx.storage.store.localPath(keptKey(rel))
  if (!local) return
  const root = keepRoot(ctx)
  for (let dir = dirname(local); dir !== root && dir.startsWith(root + sep); dir = dirname(dir)) {
    try {
      await rmdir(dir)
    } catch {
      break // not empty (or gone)
    }
  }
}

/** A kept file with byte ranges (and HEAD), played in the page; from the bucket with STORAGE=s3 (503 while it is down). */
export function serveKept(ctx: Ctx, req: Request, rel: string, type: string): Promise<Response> {
  keepPath(ctx, rel)
  return sendStored(req, ctx.storage.store, keptKey(rel), { filename: rel.split('/').pop() ?? 'video', type, inline: true, presign: ctx.env.S3_PRESIGN === 'on' })
}

/** Free bytes on the disk holding KEEP_DIR; null when unknown. */
export async function keepFreeBytes(ctx: Pick<AppContext, 'env'>): Promise<number | null> {
  const root = keepRoot(ctx)
  await mkdir(root, { recursive: true }).catch(() => {})
  try {
    const s = await statfs(root)
    return Number(s.bavail) * Number(s.bsize)
  } catch {
    return null
  }
}

export const relativeToKeep = (ctx: Pick<AppContext, 'env'>, abs: string) => relative(keepRoot(ctx), abs)
