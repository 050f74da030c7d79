import { and, asc, count, eq, isNull, sql } from 'drizzle-orm'
import type { Tx } from '../../db/client.ts'
import { muteChannelFor } from '../personal/mutes.ts'
import { youtubeChannels, youtubeSubscriptions, youtubeUserChannels } from '../tables.ts'

// Subscriptions, and the YouTube channel a user syncs them from.

export async function listSubscriptions(db: Tx, userId: string, page: number, perPage: number) {
  const active = and(eq(youtubeSubscriptions.userId, userId), isNull(youtubeSubscriptions.deletedAt))
  const rows = await db
    .select({
      id: youtubeChannels.id,
      title: youtubeChannels.title,
      thumbnail: youtubeChannels.thumbnail,
      updating: sql<boolean>`${youtubeChannels.refreshStartedAt} is not null`,
    })
    .from(youtubeSubscriptions)
    .innerJoin(youtubeChannels, eq(youtubeChannels.id, youtubeSubscriptions.channelId))
    .where(active)
    .orderBy(sql`lower(${youtubeChannels.title})`, asc(youtubeChannels.id))
    .limit(perPage)
    .offset((page - 1) * perPage)
  const [total] = await db.select({ n: count() }).from(youtubeSubscriptions).where(active)
  return {
    channels: rows.map((r) => ({ ...r, subscribed: true as const })),
    totalPages: Math.ceil((total?.n ?? 0) / perPage),
  }
}

export type SubscriptionRow = typeof youtubeSubscriptions.$inferSelect

export async function userSubscriptionRows(db: Tx, userId: string): Promise<SubscriptionRow[]> {
  return db.select().from(youtubeSubscriptions).where(eq(youtubeSubscriptions.userId, userId))
}

/**
 * Adds (or revives) a subscription; returns true when it was not active
 * before. A hand-add of a channel that was only synced makes it hand-added,
 * so a later sync leaves it alone.
 */
export async function subscribe(db: Tx, userId: string, channelId: string, source: 'manual' | 'sync' = 'manual'): Promise<boolean> {
  const rows = await db
    .insert(youtubeSubscriptions)
    .values({ userId, channelId, source })
    .onConflictDoUpdate({
      target: [youtubeSubscriptions.userId, youtubeSubscriptions.channelId],
      set: {
        source: sql`case when ${youtubeSubscriptions.deletedAt} is null then 'manual' else excluded.source end`,
        createdAt: sql`case when ${youtubeSubscriptions.deletedAt} is null then ${youtubeSubscriptions.createdAt} else now() end`,
        deletedAt: null,
        deletedBy: null,
      },
      setWhere: sql`${youtubeSubscriptions.deletedAt} is not null or (excluded.source = 'manual' and ${youtubeSubscriptions.source} = 'sync')`,
    })
    .returning({ revived: sql<boolean>`xmax = 0 or ${youtubeSubscriptions.createdAt} = now()` })
  const revived = rows.some((r) => r.revived)
  // the channel's stored videos the user's muted words hide (docs/decisions/251)
  if (revived) await muteChannelFor(db, userId, channelId)
  return revived
}

/** Soft removal; false when there was no active subscription. */
export async function unsubscribe(db: Tx, userId: string, channelId: string, by: 'user' | 'sync'): Promise<boolean> {
  const rows = await db
    .update(youtubeSubscriptions)
    .set({ deletedAt: sql`now()`, deletedBy: by })
    .where(
      and(
        eq(youtubeSubscriptions.userId, userId),
        eq(youtubeSubscriptions.channelId, channelId),
        isNull(youtubeSubscriptions.deletedAt),
      ),
    )
    .returning({ channelId: youtubeSubscriptions.channelId })
  return rows.length > 0
}

export async function getUserChannel(db: Tx, userId: string) {
  const [row] = await db.select().from(youtubeUserChannels).where(eq(youtubeUserChannels.userId, userId))
  return row
}

export async function setUserChannel(db: Tx, userId: string, channelId: string) {
  await db
    .insert(youtubeUserChannels)
    .values({ userId, channelId })
    .onConflictDoUpdate({
      target: youtubeUserChannels.userId,
      set: { channelId, updatedAt: sql`now()`, syncedAt: null, syncError: null },
    })
}

export async function usersWithChannel(db: Tx): Promise<string[]> {
  const rows = await db.select({ userId: youtubeUserChannels.userId }).from(youtubeUserChannels)
  return rows.map((r) => r.userId)
}
