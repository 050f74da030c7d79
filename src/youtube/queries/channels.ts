import { and, eq, inArray, isNull, sql } from 'drizzle-orm'
import type { Tx } from '../../db/client.ts'
import { rowsOf } from '../../db/rows.ts'
import type { ApiChannel } from '../client.ts'
import { youtubeChannels, youtubeSubscriptions } from '../tables.ts'

// Channels: stored from the API, shown with the user's subscription state, and who follows them.

export type ChannelRow = typeof youtubeChannels.$inferSelect

export interface ChannelJson {
  id: string
  title: string
  thumbnail: string
  subscribed: boolean
  updating: boolean
}

export async function getChannel(db: Tx, id: string): Promise<ChannelRow | undefined> {
  const [row] = await db.select().from(youtubeChannels).where(eq(youtubeChannels.id, id))
  return row
}

export async function findChannelByHandle(db: Tx, handle: string): Promise<ChannelRow | undefined> {
  const h = (handle.startsWith('@') ? handle : `@${handle}`).toLowerCase()
  const [row] = await db.select().from(youtubeChannels).where(eq(youtubeChannels.handle, h))
  return row
}

/** Which of `ids` are stored channels. */
export async function storedChannelIds(db: Tx, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>()
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await db
      .select({ id: youtubeChannels.id })
      .from(youtubeChannels)
      .where(inArray(youtubeChannels.id, ids.slice(i, i + 1000)))
    for (const r of rows) found.add(r.id)
  }
  return found
}

/** Inserts or refreshes channels from the API (never touching their refresh state). */
export async function upsertChannels(db: Tx, channels: ApiChannel[]): Promise<void> {
  if (channels.length === 0) return
  // a handle moves: free it from any other channel that still claims it
  const handles = channels.map((c) => c.handle).filter((h): h is string => !!h)
  if (handles.length) {
    await db
      .update(youtubeChannels)
      .set({ handle: null })
      .where(
        and(
          inArray(youtubeChannels.handle, handles),
          sql`${youtubeChannels.id} not in (${sql.join(
            channels.map((c) => sql`${c.id}`),
            sql`, `,
          )})`,
        ),
      )
  }
  await db
    .insert(youtubeChannels)
    .values(channels.map((c) => ({ id: c.id, title: c.title, handle: c.handle, thumbnail: c.thumbnail, uploadsPlaylistId: c.uploadsPlaylistId })))
    .onConflictDoUpdate({
      target: youtubeChannels.id,
      set: {
        title: sql`excluded.title`,
        handle: sql`excluded.handle`,
        thumbnail: sql`excluded.thumbnail`,
        uploadsPlaylistId: sql`coalesce(excluded.uploads_playlist_id, ${youtubeChannels.uploadsPlaylistId})`,
        updatedAt: sql`now()`,
      },
    })
}

export async function channelJson(db: Tx, userId: string, id: string): Promise<ChannelJson | null> {
  const [row] = await db
    .select({
      id: youtubeChannels.id,
      title: youtubeChannels.title,
      thumbnail: youtubeChannels.thumbnail,
      subscribed: sql<boolean>`${youtubeSubscriptions.userId} is not null`,
      updating: sql<boolean>`${youtubeChannels.refreshStartedAt} is not null`,
    })
    .from(youtubeChannels)
    .leftJoin(
      youtubeSubscriptions,
      and(
        eq(youtubeSubscriptions.channelId, youtubeChannels.id),
        eq(youtubeSubscriptions.userId, userId),
        isNull(youtubeSubscriptions.deletedAt),
      ),
    )
    .where(eq(youtubeChannels.id, id))
  return row ?? null
}

/** Users with an active subscription to the channel: who hears its `updating`. */
export async function followers(db: Tx, channelId: string): Promise<string[]> {
  const rows = await db
    .select({ userId: youtubeSubscriptions.userId })
    .from(youtubeSubscriptions)
    .where(and(eq(youtubeSubscriptions.channelId, channelId), isNull(youtubeSubscriptions.deletedAt)))
  return rows.map((r) => r.userId)
}

/**
 * Channels someone follows, in a order fair across users: each user's
 * channels are ranked least recently refreshed first, and the list takes every
 * user's first, then every user's second, ... (a channel counts at its best
 * rank among its followers). One user's 5,000 fresh imports no longer go
 * before everyone else's channels when the day's units run short.
 */
export async function followedChannelIds(db: Tx): Promise<string[]> {
  const rows = rowsOf<{ id: string }>(
    await db.execute(sql`
      with ranked as (
        select s.channel_id, c.refreshed_at,
               row_number() over (partition by s.user_id order by c.refreshed_at asc nulls first, c.id) as turn
        from youtube_subscriptions s join youtube_channels c on c.id = s.channel_id
        where s.deleted_at is null
      )
      select channel_id as id from ranked
      group by channel_id
      order by min(turn), min(refreshed_at) asc nulls first, channel_id`),
  )
  return rows.map((r) => r.id)
}
