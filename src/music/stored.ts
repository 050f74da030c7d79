import { rm, stat } from 'node:fs/promises'
import type { AppContext } from '../context.ts'
import { errorFields, log } from '../lib/logger.ts'
import { saveToDisk, whileUnavailable } from '../storage/index.ts'
import { inside, jobDir, mimeOf } from './files.ts'

/**
 * A music job's kept files in the store (src/storage): the key is the file's
 * path under DATA_DIR (`music/<user>/<job>/<name>`), so the local store finds
 * each file where it always was and every step below is a no-op there. With
 * STORAGE=s3 the job folder is passing work only: files are fetched into it
 * for a step that needs them on disk (a retry, a tag edit, WebDAV, a cover
 * scaling) and the folder goes once the results are stored.
 */
export const jobPrefix = (userId: string, jobId: string) => `music/${userId}/${jobId}/`
export const jobKey = (userId: string, jobId: string, name: string) => jobPrefix(userId, jobId) + name

type JobRef = { userId: string; id: string }

/** Every file name a job row keeps (upload, artwork, output, tracks). */
export function keptNames(row: { uploadFile?: string | null; artworkFile?: string | null; outputFile?: string | null; tracks?: { file: string }[] }): string[] {
  return [row.uploadFile, row.artworkFile, row.outputFile, ...(row.tracks ?? []).map((t) => t.file)].filter((n): n is string => !!n)
}

const isLocal = (ctx: Pick<AppContext, 'storage'>) => ctx.storage.store.kind === 'local'

/**
 * Stores the named files from the job folder (waiting while the store is unreachable; a refusal is thrown).
 * `inputs` (the upload, an artwork file) may be stored already since the job was made: a HEAD of the same size skips them.
 */
export async function storeJobFiles(ctx: Pick<AppContext, 'env' | 'storage'>, job: JobRef, names: string[], signal?: AbortSignal, inputs: string[] = []): Promise<void> {
  if (isLocal(ctx)) return
  const dir = jobDir(ctx.env.DATA_DIR, job.userId, job.id)
  for (const name of names) {
    const path = inside(dir, name)
    const info = await stat(path).catch(() => null)
    if (!info?.isFile()) continue
    const key = jobKey(job.userId, job.id, name)
    if (inputs.includes(name) && (await whileUnavailable(() => ctx.storage.store.head(key), { signal }))?.size === info.size) continue
    await whileUnavailable(() => ctx.storage.store.putFile(key, path, { type: mimeOf(name) }), { signal })
  }
}

/** How long making a job waits for its upload to be stored before holding it here as passing work. */
const INPUT_STORE_MS = 10_000

/**
 * A new job's upload and artwork, stored at once (STORAGE=s3) so that any machine can run the job, and
 * then removed from this machine's disk (a job run here fetches them back, as a retry does).
 * The store down or slow: the job is still made, its files held here as passing work (stored when it runs).
 */
export async function storeJobInputs(ctx: Pick<AppContext, 'env' | 'storage'>, job: JobRef, names: string[]): Promise<boolean> {
  if (isLocal(ctx)) return true
  const dir = jobDir(ctx.env.DATA_DIR, job.userId, job.id)
  // past the bound the job is made with its files here: they stay, whatever the upload does later
  let gaveUp = false
  const work = (async () => {
    for (const name of names) await ctx.storage.store.putFile(jobKey(job.userId, job.id, name), inside(dir, name), { type: mimeOf(name) })
    // stored: no copy stays on this machine (the job may run on another; here it fetches them back)
    if (!gaveUp) for (const name of names) await rm(inside(dir, name), { force: true })
    return true
  })().catch((err) => {
    log.warn('job input held as passing work', { id: job.id, ...errorFields(err) })
    return false
  })
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => {
      gaveUp = true
      resolve(false)
    }, INPUT_STORE_MS)
  })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}

/** Brings the named files into the job folder from the store where they are not on disk already. */
export async function fetchJobFiles(ctx: Pick<AppContext, 'env' | 'storage'>, job: JobRef, names: string[]): Promise<void> {
  if (isLocal(ctx)) return
  const dir = jobDir(ctx.env.DATA_DIR, job.userId, job.id)
  for (const name of names) {
    const path = inside(dir, name)
    if ((await stat(path).catch(() => null))?.isFile()) continue
    await saveToDisk(ctx.storage.store, jobKey(job.userId, job.id, name), path)
  }
}

/** With an S3 store: the job folder goes once its files are stored (it held passing work only). */
export async function dropLocalJob(ctx: Pick<AppContext, 'env' | 'storage'>, job: JobRef): Promise<void> {
  if (isLocal(ctx)) return
  await rm(jobDir(ctx.env.DATA_DIR, job.userId, job.id), { recursive: true, force: true })
}

/** A deleted job: its folder here and its objects in the store (an unreachable store leaves strays for `storage check`). */
export async function removeJobFiles(ctx: Pick<AppContext, 'env' | 'storage'>, job: JobRef): Promise<void> {
  await rm(jobDir(ctx.env.DATA_DIR, job.userId, job.id), { recursive: true, force: true })
  if (isLocal(ctx)) return
  try {
    await ctx.storage.store.deletePrefix(jobPrefix(job.userId, job.id))
  } catch (err) {
    log.warn('stored files of a deleted job not removed', { id: job.id, error: (err as Error).message })
  }
}
