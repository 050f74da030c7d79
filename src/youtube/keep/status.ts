import type { AppContext } from '../../context.ts'
import { diskWait } from './fetch.ts'
import { keepFreeBytes, keepRoot } from './files.ts'
import { MB } from './usage.ts'

/**
 * `disk.keep` of GET /api/admin/status: the disk holding KEEP_DIR against KEEP_MIN_FREE_MB,
 * and, below it, why keeping waits and what to do.
 */
export async function keepDiskStatus(ctx: AppContext) {
  const freeBytes = await keepFreeBytes(ctx)
  const minFreeBytes = ctx.env.KEEP_MIN_FREE_MB * MB
  const low = freeBytes !== null && freeBytes < minFreeBytes
  const gib = (b: number) => `${(b / 1024 ** 3).toFixed(1)} GB`
  return {
    path: keepRoot(ctx),
    freeBytes,
    minFreeBytes,
    low,
    waitingSince: low ? diskWait.since : null,
    warning: low
      ? `Keeping videos waits: only ${gib(freeBytes!)} is free on the disk of the kept videos, below KEEP_MIN_FREE_MB (${gib(minFreeBytes)}). Free some space, remove kept videos or lower KEEP_MIN_FREE_MB.`
      : null,
  }
}
