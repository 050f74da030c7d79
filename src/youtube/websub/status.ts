import { desc, isNotNull, sql } from 'drizzle-orm'
import type { AppContext } from '../../context.ts'
import { websubEnabled } from './public-url.ts'
import { youtubeWebsub } from './tables.ts'

/** `youtube.websub` in GET /api/admin/status: `subscribed` counts channels with a live lease. */
export async function websubStatus(ctx: Pick<AppContext, 'db' | 'env'>) {
  const [enabled, [counts], [failed]] = await Promise.all([
    websubEnabled(ctx.env),
    ctx.db
      .select({
        subscribed: sql<number>`count(*) filter (where ${youtubeWebsub.state} = 'active' and ${youtubeWebsub.leaseExpiresAt} > now())`.mapWith(Number),
        lastPushAt: sql<Date | null>`max(${youtubeWebsub.lastPushAt})`,
      })
      .from(youtubeWebsub),
    ctx.db
      .select({ lastError: youtubeWebsub.lastError })
      .from(youtubeWebsub)
      .where(isNotNull(youtubeWebsub.lastError))
      .orderBy(desc(youtubeWebsub.requestedAt))
      .limit(1),
  ])
  const last = counts?.lastPushAt ? new Date(counts.lastPushAt) : null
  return {
    enabled,
    hub: ctx.env.WEBSUB_HUB_URL,
    subscribed: counts?.subscribed ?? 0,
    lastPushAt: last ? last.toISOString() : null,
    lastError: failed?.lastError ?? null,
  }
}
