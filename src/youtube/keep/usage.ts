import { and, eq, sql } from 'drizzle-orm'
import type { AppContext } from '../../context.ts'
import type { Tx } from '../../db/client.ts'
import { rowsOf } from '../../db/rows.ts'
import { personEpisodeBytes } from '../listen/episode-queries.ts'
import { youtubeKeepQuotas, youtubeKeeps, youtubeKeptFiles } from './tables.ts'

/** 1 MB of a quota. */
export const MB = 1024 * 1024

/** Bytes of every stored file the user keeps, each counted in full (however many others keep it); `except` left out. */
export async function usedBytes(db: Tx, userId: string, except?: string): Promise<number> {
  const [row] = rowsOf<{ used: string | number | null }>(
    await db.execute(sql`select coalesce(sum(f.size), 0) as used from ${youtubeKeeps} k join ${youtubeKeptFiles} f on f.video_id = k.video_id
      where k.user_id = ${userId} and k.removed_at is null and k.error_kind is null and f.file is not null
      ${except ? sql`and k.video_id <> ${except}` : sql``}`),
  )
  return Number(row?.used ?? 0)
}

/**
 * What the quota is checked against (docs/decisions/220): the kept files and the podcast
 * episodes in the person's feeds, both stored for them on the server's disk.
 */
export async function storedBytes(db: Tx, userId: string, except?: string): Promise<number> {
  return (await usedBytes(db, userId, except)) + (await personEpisodeBytes(db, userId))
}

/** The user's quota in bytes; null: no limit. */
export async function quotaBytes(db: Tx, userId: string): Promise<number | null> {
  const [row] = await db.select({ mb: youtubeKeepQuotas.quotaMb }).from(youtubeKeepQuotas).where(eq(youtubeKeepQuotas.userId, userId))
  return row ? row.mb * MB : null
}

export async function setQuota(db: Tx, userId: string, mb: number | null): Promise<void> {
  if (mb === null) await db.delete(youtubeKeepQuotas).where(eq(youtubeKeepQuotas.userId, userId))
  else await db.insert(youtubeKeepQuotas).values({ userId, quotaMb: mb }).onConflictDoUpdate({ target: youtubeKeepQuotas.userId, set: { quotaMb: mb } })
}

const mb = (bytes: number) => `${Math.ceil(bytes / MB).toLocaleString('en')} MB`

/** The sentence of a keep refused by the quota: what happened and what to do. */
export const quotaSentence = (quota: number, used: number) =>
  `Your space for kept videos (${mb(quota)}) is used up: ${mb(used)} taken by kept videos and podcast episodes. Remove kept videos on the Kept page, or ask an admin for more space.`
export const quotaSentenceFor = (quota: number, used: number, size: number | null) =>
  `This video${size === null ? '' : ` (${mb(size)})`} does not fit in your space for kept videos: ${mb(used)} of ${mb(quota)} used. Remove kept videos on the Kept page, or ask an admin for more space.`

/** Marks the user's keep failed with the quota's sentence. */
export async function failForQuota(db: Tx, userId: string, videoId: string, sentence: string): Promise<void> {
  await db.update(youtubeKeeps).set({ error: sentence, errorKind: 'quota' }).where(and(eq(youtubeKeeps.userId, userId), eq(youtubeKeeps.videoId, videoId)))
}

/**
 * A keep just added: the user is at or above the quota, or the video's stored file would pass
 * it → the keep is failed (`quota`). Returns the room left in bytes (null: no limit), or 0 when refused.
 */
export async function quotaProblem(ctx: AppContext, userId: string, videoId: string): Promise<number | null> {
  const quota = await quotaBytes(ctx.db, userId)
  if (quota === null) return null
  const used = await storedBytes(ctx.db, userId, videoId)
  if (used >= quota) {
    await failForQuota(ctx.db, userId, videoId, quotaSentence(quota, used))
    return 0
  }
  const [file] = await ctx.db.select({ size: youtubeKeptFiles.size, file: youtubeKeptFiles.file }).from(youtubeKeptFiles).where(eq(youtubeKeptFiles.videoId, videoId))
  if (file?.file && file.size !== null && used + file.size > quota) {
    await failForQuota(ctx.db, userId, videoId, quotaSentenceFor(quota, used, file.size))
    return 0
  }
  return quota - used
}
