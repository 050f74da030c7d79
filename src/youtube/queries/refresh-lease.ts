import { and, eq, isNull, or, sql } from 'drizzle-orm'
import type { Tx } from '../../db/client.ts'
import { youtubeChannels } from '../tables.ts'

// The refresh lease: one refresh per channel at a time, across processes.

/** A refresh whose heartbeat is older than this is taken to have died. */
export const REFRESH_STALE_SECONDS = 90

/** Atomically marks the channel updating; false when another refresh holds it. */
export async function claimRefresh(db: Tx, channelId: string): Promise<boolean> {
  const rows = await db
    .update(youtubeChannels)
    .set({ refreshStartedAt: sql`now()`, refreshHeartbeatAt: sql`now()` })
    .where(
      and(
        eq(youtubeChannels.id, channelId),
        or(
          isNull(youtubeChannels.refreshStartedAt),
          sql`${youtubeChannels.refreshHeartbeatAt} < now() - make_interval(secs => ${REFRESH_STALE_SECONDS})`,
        ),
      ),
    )
    .returning({ id: youtubeChannels.id })
  return rows.length > 0
}

export async function heartbeatRefresh(db: Tx, channelId: string): Promise<void> {
  await db.update(youtubeChannels).set({ refreshHeartbeatAt: sql`now()` }).where(eq(youtubeChannels.id, channelId))
}

export async function releaseRefresh(db: Tx, channelId: string, error: string | null | undefined): Promise<void> {
  await db
    .update(youtubeChannels)
    .set({
      refreshStartedAt: null,
      refreshHeartbeatAt: null,
      ...(error === undefined ? {} : { refreshError: error }),
    })
    .where(eq(youtubeChannels.id, channelId))
}

/**
 * Clears `updating` left by refreshes that died with their process. At
 * start-up of a single process every one is dead (`staleOnly: false`); with
 * several processes only those whose heartbeat stopped are. Returns their ids.
 */
export async function resetRefreshes(db: Tx, opts: { staleOnly?: boolean } = {}): Promise<string[]> {
  const rows = await db
    .update(youtubeChannels)
    .set({ refreshStartedAt: null, refreshHeartbeatAt: null })
    .where(
      opts.staleOnly
        ? sql`${youtubeChannels.refreshStartedAt} is not null and ${youtubeChannels.refreshHeartbeatAt} < now() - make_interval(secs => ${REFRESH_STALE_SECONDS})`
        : sql`${youtubeChannels.refreshStartedAt} is not null`,
    )
    .returning({ id: youtubeChannels.id })
  return rows.map((r) => r.id)
}
