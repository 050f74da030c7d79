import { and, eq, inArray, isNull } from 'drizzle-orm'
import { log } from '../lib/logger.ts'
import { YoutubeApiError, youtubeClientFor, type YoutubeClient } from './client.ts'
import { QuotaExhausted } from './quota.ts'
import { storedChannelIds, upsertChannels } from './queries/channels.ts'
import { getUserChannel, userSubscriptionRows } from './queries/subscriptions.ts'
import type { YoutubeCtx } from './refresh.ts'
import { youtubeSubscriptions, youtubeUserChannels } from './tables.ts'

export type SyncOutcome =
  | { status: 'done'; added: string[]; removed: string[]; kept: number }
  | { status: 'no-channel' }
  | { status: 'failed'; reason: string }
  | { status: 'quota'; resetsAt: Date; reason: string }

async function recordSync(ctx: YoutubeCtx, userId: string, error: string | null) {
  await ctx.db
    .update(youtubeUserChannels)
    .set(error ? { syncError: error } : { syncError: null, syncedAt: new Date() })
    .where(eq(youtubeUserChannels.userId, userId))
}

/**
 * Brings a user's synced subscriptions in line with the public subscriptions
 * of their channel: new ones are added, synced ones that disappeared are
 * removed (softly), hand-added ones are never touched, and a channel the user
 * removed here is not brought back. All changes land in one transaction.
 */
export async function syncSubscriptions(
  ctx: YoutubeCtx,
  userId: string,
  opts: { signal?: AbortSignal; client?: YoutubeClient } = {},
): Promise<SyncOutcome> {
  const userChannel = await getUserChannel(ctx.db, userId)
  if (!userChannel) return { status: 'no-channel' }
  const client = opts.client ?? youtubeClientFor(ctx, opts.signal)
  const remote = new Map<string, { title: string; thumbnail: string }>()
  try {
    let pageToken: string | undefined
    do {
      const page = await client.subscriptions(userChannel.channelId, pageToken)
      for (const item of page.items) remote.set(item.channelId, item)
      pageToken = page.nextPageToken ?? undefined
    } while (pageToken)
    // channel details (uploads playlist, handle) for the ones not stored yet: 1 unit per 50
    const storedIds = await storedChannelIds(ctx.db, [...remote.keys()])
    const missing = [...remote.keys()].filter((id) => !storedIds.has(id))
    const details = missing.length ? await client.channelsById(missing) : []
    const fetched = new Set(details.map((d) => d.id))
    // a channel listed but not returned (terminated) is still kept, from the subscription's snippet
    const fallback = missing
      .filter((id) => !fetched.has(id))
      .map((id) => ({ id, ...remote.get(id)!, handle: null, uploadsPlaylistId: null }))

    const result = await ctx.db.transaction(async (tx) => {
      await upsertChannels(tx, [...details, ...fallback])
      const rows = await userSubscriptionRows(tx, userId)
      const byChannel = new Map(rows.map((r) => [r.channelId, r]))
      const added: string[] = []
      const removed: string[] = []
      for (const channelId of remote.keys()) {
        const row = byChannel.get(channelId)
        if (!row) {
          await tx.insert(youtubeSubscriptions).values({ userId, channelId, source: 'sync' })
          added.push(channelId)
        } else if (row.deletedAt && row.deletedBy === 'sync') {
          await tx
            .update(youtubeSubscriptions)
            .set({ deletedAt: null, deletedBy: null, source: 'sync', createdAt: new Date() })
            .where(and(eq(youtubeSubscriptions.userId, userId), eq(youtubeSubscriptions.channelId, channelId)))
          added.push(channelId)
        }
        // active rows stay as they are; removed by the user stays removed
      }
      const gone = rows.filter((r) => r.source === 'sync' && !r.deletedAt && !remote.has(r.channelId)).map((r) => r.channelId)
      if (gone.length) {
        await tx
          .update(youtubeSubscriptions)
          .set({ deletedAt: new Date(), deletedBy: 'sync' })
          .where(
            and(
              eq(youtubeSubscriptions.userId, userId),
              eq(youtubeSubscriptions.source, 'sync'),
              isNull(youtubeSubscriptions.deletedAt),
              inArray(youtubeSubscriptions.channelId, gone),
            ),
          )
        removed.push(...gone)
      }
      await tx
        .update(youtubeUserChannels)
        .set({ syncedAt: new Date(), syncError: null })
        .where(eq(youtubeUserChannels.userId, userId))
      return { added, removed, kept: remote.size - added.length }
    })
    log.info('subscriptions synced', { userId, added: result.added.length, removed: result.removed.length })
    return { status: 'done', ...result }
  } catch (err) {
    if (err instanceof QuotaExhausted) {
      await recordSync(ctx, userId, err.message)
      return { status: 'quota', resetsAt: err.resetsAt, reason: err.reason }
    }
    if (err instanceof YoutubeApiError && (err.status === 403 || err.status === 404)) {
      const reason =
        err.reason === 'subscriptionForbidden'
          ? 'The subscriptions of this channel are private.'
          : err.status === 404
            ? 'Youtube Channel not found.'
            : err.message
      await recordSync(ctx, userId, reason)
      return { status: 'failed', reason }
    }
    await recordSync(ctx, userId, err instanceof Error ? err.message : String(err))
    throw err
  }
}
