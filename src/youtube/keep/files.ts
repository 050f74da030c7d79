import { mkdir, rename, rm, rmdir, stat, statfs, writeFile } from 'node:fs/promises'
import { dirname, join, relative, resolve, sep } from 'node:path'
import type { AppContext } from '../../context.ts'
import { sendFile } from '../../lib/send-file.ts'

/**
 * Every file operation on kept videos goes through here (one small seam, so the files can move
 * onto the storage layer of the storage issue without touching the rest): paths are relative
 * to KEEP_DIR and checked to stay inside it; a file is written under a temporary name in its
 * own folder and renamed, so nothing appears under its final name until complete.
 */
export const keepRoot = (ctx: Pick<AppContext, 'env'>) => resolve(ctx.env.KEEP_DIR ?? join(ctx.env.DATA_DIR, 'videos'))

/** The absolute path of `rel`; throws when it would leave KEEP_DIR (a name is never trusted). */
export function keepPath(ctx: Pick<AppContext, 'env'>, rel: string): string {
  const root = keepRoot(ctx)
  const abs = resolve(root, rel)
  if (abs === root || !abs.startsWith(root + sep)) throw new Error(`kept path outside KEEP_DIR: ${JSON.stringify(rel)}`)
  return abs
}

/** Where a video's fetch works (yt-dlp's `.part` files stay here between runs, so a fetch resumes). */
export const workDir = (ctx: Pick<AppContext, 'env'>, videoId: string) => join(keepRoot(ctx), '.work', videoId)

/** Writes `data` to `rel` through a temporary name beside it. */
export async function writeKept(ctx: Pick<AppContext, 'env'>, rel: string, data: string | Uint8Array): Promise<void> {
  const abs = keepPath(ctx, rel)
  await mkdir(dirname(abs), { recursive: true })
  const tmp = join(dirname(abs), `.${crypto.randomUUID()}.tmp`)
  try {
    await writeFile(tmp, data)
    await rename(tmp, abs)
  } finally {
    await rm(tmp, { force: true })
  }
}

/** Moves a finished file (from the work folder, same file system) to `rel`. */
export async function moveIntoKept(ctx: Pick<AppContext, 'env'>, from: string, rel: string): Promise<void> {
  const abs = keepPath(ctx, rel)
  await mkdir(dirname(abs), { recursive: true })
  await rename(from, abs)
}

export async function keptSize(ctx: Pick<AppContext, 'env'>, rel: string): Promise<number | null> {
  const info = await stat(keepPath(ctx, rel)).catch(() => null)
  return info?.isFile() ? info.size : null
}

/** Removes `rel` (gone already is fine), then its folders up to KEEP_DIR while they are empty. */
export async function removeKept(ctx: Pick<AppContext, 'env'>, rel: string): Promise<void> {
  const abs = keepPath(ctx, rel)
  await rm(abs, { force: true })
  const root = keepRoot(ctx)
  for (let dir = dirname(abs); dir !== root && dir.startsWith(root + sep); dir = dirname(dir)) {
    try {
      await rmdir(dir)
    } catch {
      break // not empty (or gone)
    }
  }
}

/** A kept file with byte ranges (and HEAD), played in the page. */
export function serveKept(ctx: Pick<AppContext, 'env'>, req: Request, rel: string, type: string): Promise<Response> {
  return sendFile(req, keepPath(ctx, rel), { filename: rel.split('/').pop() ?? 'video', type, inline: true })
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
