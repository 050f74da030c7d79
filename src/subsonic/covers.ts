import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { AppContext } from '../context.ts'
import { runProcess } from '../lib/process.ts'
import { inside, jobDir, mimeOf } from '../music/files.ts'
import { fetchJobFiles } from '../music/stored.ts'

/** Largest `size` getCoverArt scales to; larger asks get the stored artwork. */
export const MAX_COVER_SIZE = 2048
const making = new Map<string, Promise<string | null>>()

/**
 * The artwork of a job at most `size` pixels on its longer side: the stored file when no size
 * is asked (or it is already that small), else a JPEG scaled down by ffmpeg, made once per
 * size and kept in the job's folder (`covers/<size>-<artwork mtime>.jpg`, so a new artwork
 * makes new ones; the folder goes with the job).
 */
export async function coverFile(
  ctx: Pick<AppContext, 'env' | 'tools' | 'storage'>,
  job: { userId: string; jobId: string; artworkFile: string },
  size: number | undefined,
): Promise<{ path: string; type: string } | null> {
  const dir = jobDir(ctx.env.DATA_DIR, job.userId, job.jobId)
  // STORAGE=s3: the artwork is fetched into the job folder, where the scaled sizes are kept as a cache
  await fetchJobFiles(ctx, { userId: job.userId, id: job.jobId }, [job.artworkFile])
  const original = inside(dir, job.artworkFile)
  const info = await stat(original).catch(() => null)
  if (!info?.isFile()) return null
  const stored = { path: original, type: mimeOf(job.artworkFile) }
  if (!size || size >= MAX_COVER_SIZE || !ctx.tools.ffmpeg) return stored
  const covers = join(dir, 'covers')
  const name = `${size}-${Math.floor(info.mtimeMs)}.jpg`
  const target = join(covers, name)
  if (await stat(target).then((s) => s.isFile()).catch(() => false)) return { path: target, type: 'image/jpeg' }
  let pending = making.get(target)
  if (!pending) {
    pending = scale(ctx.tools.ffmpeg.path, original, covers, name, size).finally(() => making.delete(target))
    making.set(target, pending)
  }
  const made = await pending
  return made ? { path: made, type: 'image/jpeg' } : stored
}

async function scale(ffmpeg: string, input: string, covers: string, name: string, size: number): Promise<string | null> {
  await mkdir(covers, { recursive: true })
  const tmp = join(covers, `.${crypto.randomUUID()}.jpg`)
  const box = `scale='min(${size},iw)':'min(${size},ih)':force_original_aspect_ratio=decrease`
  const result = await runProcess(
    [ffmpeg, '-hide_banner', '-nostdin', '-y', '-i', input, '-vf', box, '-frames:v', '1', '-q:v', '3', '-f', 'image2', '-c:v', 'mjpeg', tmp],
    { signal: AbortSignal.timeout(30_000) },
  )
  if (result.code !== 0) {
    await rm(tmp, { force: true })
    return null
  }
  await rename(tmp, join(covers, name))
  // covers of an earlier artwork at this size are not asked for again
  for (const old of await readdir(covers).catch(() => [] as string[])) {
    if (old !== name && old.startsWith(`${size}-`)) await rm(join(covers, old), { force: true })
  }
  return join(covers, name)
}
