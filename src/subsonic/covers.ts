import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { AppContext } from '../context.ts'
import { scaleToJpeg } from '../music/cover-scale.ts'
import { inside, jobDir, mimeOf } from '../music/files.ts'
import { imageSize } from '../music/square.ts'
import { fetchJobFiles } from '../music/stored.ts'

/**
 * The sizes getCoverArt makes (docs/decisions/230-cover-scaling-bounds.md): a `size` is
 * snapped down to the largest step at most that size, so that a player's 1-2047 cannot start
 * two thousand scalings; below the smallest step the size is made as asked (tiny, and the
 * answer is never larger than asked).
 */
export const COVER_STEPS = [32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072] as const
const making = new Map<string, Promise<string | null>>()

export function snapCoverSize(size: number): number {
  let snapped = size
  for (const step of COVER_STEPS) if (step <= size) snapped = step
  return snapped
}

/**
 * The artwork of a job at most `size` pixels on its longer side: the stored file when no size
 * is asked (or it is already that small), else a JPEG scaled down by ffmpeg to the snapped
 * size, made once per step and kept in the job's folder (`covers/<size>-<artwork mtime>.jpg`,
 * so a new artwork makes new ones; the folder goes with the job). Scalings share the app-wide
 * slots of src/music/cover-scale.ts.
 */
export async function coverFile(
  ctx: Pick<AppContext, 'env' | 'tools' | 'storage'>,
  job: { userId: string; jobId: string; artworkFile: string },
  asked: number | undefined,
): Promise<{ path: string; type: string } | null> {
  const dir = jobDir(ctx.env.DATA_DIR, job.userId, job.jobId)
  // STORAGE=s3: the artwork is fetched into the job folder, where the scaled sizes are kept as a cache
  await fetchJobFiles(ctx, { userId: job.userId, id: job.jobId }, [job.artworkFile])
  const original = inside(dir, job.artworkFile)
  const info = await stat(original).catch(() => null)
  if (!info?.isFile()) return null
  const stored = { path: original, type: mimeOf(job.artworkFile) }
  if (!asked) return stored
  const size = snapCoverSize(asked)
  const covers = join(dir, 'covers')
  const name = `${size}-${Math.floor(info.mtimeMs)}.jpg`
  const target = join(covers, name)
  if (await stat(target).then((s) => s.isFile()).catch(() => false)) return { path: target, type: 'image/jpeg' }
  // the stored artwork answers as it is when it already fits (its header says; nothing decoded)
  const dims = imageSize(new Uint8Array(await readFile(original)))
  if (dims && dims.width <= asked && dims.height <= asked) return stored
  // without ffmpeg nothing is scaled, and nothing larger than asked is answered
  if (!ctx.tools.ffmpeg) return null
  let pending = making.get(target)
  if (!pending) {
    pending = scale(ctx.tools.ffmpeg.path, original, covers, name, size).finally(() => making.delete(target))
    making.set(target, pending)
  }
  // one ffmpeg cannot scale is not answered larger than asked: there is no cover of that size
  const made = await pending
  return made ? { path: made, type: 'image/jpeg' } : null
}

async function scale(ffmpeg: string, input: string, covers: string, name: string, size: number): Promise<string | null> {
  await mkdir(covers, { recursive: true })
  const tmp = join(covers, `.${crypto.randomUUID()}.jpg`)
  if (!(await scaleToJpeg(ffmpeg, input, tmp, size))) {
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
