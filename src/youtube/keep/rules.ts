import { and, desc, eq, inArray, isNull, notInArray, sql } from 'drizzle-orm'
import type { AppContext } from '../../context.ts'
import type { Tx } from '../../db/client.ts'
import { users } from '../../auth/tables.ts'
import { youtubeLikes, youtubeQueueEntries, youtubeSubscriptions, youtubeVideos, youtubeWatches } from '../tables.ts'
import { youtubeKeepRules, youtubeKeeps, youtubeKeptFiles } from './tables.ts'
import { quotaProblem } from './usage.ts'
import { afterChannelRefresh } from '../jobs.ts'

/**
 * The rules engine (docs/decisions/280): a followed channel's Keep rule keeps its newest
 * `keepLast` eligible videos (plain uploads, and Shorts with `includeShorts`; never live or
 * upcoming). A video the user removed, or whose fetch failed, still counts: the rule does not
 * reach further back. A removal leaves a mark (`removedAt`): no rule brings it back. Rules never
 * remove what the user liked, queued or pinned. Then each touched video's one file is made to
 * match its keepers (syncVideo): fetched at the largest height asked, removed with the last keep.
 */
export type KeepRule = typeof youtubeKeepRules.$inferSelect

/** Told when a video's file must be (re)fetched or removed; fetch.ts sets it (it imports this module). */
export const keepHooks: { sync: (ctx: AppContext, videoId: string) => Promise<void> } = { sync: async () => {} }

const notLikedOrQueued = (userId: string) =>
  sql`not exists (select 1 from ${youtubeLikes} l where l.user_id = ${userId} and l.video_id = ${youtubeKeeps.videoId})
    and not exists (select 1 from ${youtubeQueueEntries} q where q.user_id = ${userId} and q.video_id = ${youtubeKeeps.videoId})`

/** The channel's kept set for the rule: its newest `keepLast` eligible videos. */
export async function eligibleVideos(db: Tx, rule: Pick<KeepRule, 'channelId' | 'keepLast' | 'includeShorts'>): Promise<string[]> {
  const kinds = rule.includeShorts ? (['video', 'short'] as const) : (['video'] as const)
  const rows = await db
    .select({ id: youtubeVideos.id })
    .from(youtubeVideos)
    .where(and(eq(youtubeVideos.channelId, rule.channelId), inArray(youtubeVideos.kind, [...kinds])))
    .orderBy(desc(youtubeVideos.publishedAt), desc(youtubeVideos.id))
    .limit(rule.keepLast)
  return rows.map((r) => r.id)
}

/** Applies one user's rule for one channel; returns the videos whose keepers changed. */
export async function applyRule(ctx: AppContext, rule: KeepRule): Promise<Set<string>> {
  const { db } = ctx
  const { userId, channelId } = rule
  const touched = new Set<string>()
  const wanted = await eligibleVideos(db, rule)
  if (wanted.length) {
    // new ones in the set: kept at the rule's height; removed ones keep their mark
    const added = await db
      .insert(youtubeKeeps)
      .values(wanted.map((videoId) => ({ userId, videoId, maxHeight: rule.maxHeight })))
      .onConflictDoNothing()
      .returning({ videoId: youtubeKeeps.videoId })
    for (const a of added) {
      touched.add(a.videoId)
      await quotaProblem(ctx, userId, a.videoId)
    }
    // the rule's height for those it keeps (not pinned ones: their height was asked by hand)
    const changed = await db
      .update(youtubeKeeps)
      .set({ maxHeight: rule.maxHeight })
      .where(
        and(
          eq(youtubeKeeps.userId, userId),
          inArray(youtubeKeeps.videoId, wanted),
          eq(youtubeKeeps.pinned, false),
          isNull(youtubeKeeps.removedAt),
          sql`${youtubeKeeps.maxHeight} <> ${rule.maxHeight}`,
        ),
      )
      .returning({ videoId: youtubeKeeps.videoId })
    for (const c of changed) touched.add(c.videoId)
  }
  const inChannel = sql`${youtubeKeeps.videoId} in (select v.id from ${youtubeVideos} v where v.channel_id = ${channelId})`
  const removable = and(eq(youtubeKeeps.userId, userId), eq(youtubeKeeps.pinned, false), isNull(youtubeKeeps.removedAt), inChannel, notLikedOrQueued(userId))
  // older ones leave the set as new ones arrive
  const aged = await db
    .update(youtubeKeeps)
    .set({ removedAt: sql`now()` })
    .where(and(removable, wanted.length ? notInArray(youtubeKeeps.videoId, wanted) : undefined))
    .returning({ videoId: youtubeKeeps.videoId })
  for (const a of aged) touched.add(a.videoId)
  // watched ones leave `deleteWatchedAfterDays` after the watch
  if (rule.deleteWatchedAfterDays !== null) {
    const watched = await db
      .update(youtubeKeeps)
      .set({ removedAt: sql`now()` })
      .where(
        and(
          removable,
          sql`exists (select 1 from ${youtubeWatches} w where w.user_id = ${userId} and w.video_id = ${youtubeKeeps.videoId}
            and w.created_at <= now() - make_interval(days => ${rule.deleteWatchedAfterDays}))`,
        ),
      )
      .returning({ videoId: youtubeKeeps.videoId })
    for (const w of watched) touched.add(w.videoId)
  }
  return touched
}

/** Enabled rules of users who still follow the channel and are not disabled (optionally one user or channel). */
export async function activeRules(db: Tx, where: { userId?: string; channelId?: string } = {}): Promise<KeepRule[]> {
  return db
    .select({ rule: youtubeKeepRules })
    .from(youtubeKeepRules)
    .innerJoin(
      youtubeSubscriptions,
      and(eq(youtubeSubscriptions.userId, youtubeKeepRules.userId), eq(youtubeSubscriptions.channelId, youtubeKeepRules.channelId), isNull(youtubeSubscriptions.deletedAt)),
    )
    .innerJoin(users, and(eq(users.id, youtubeKeepRules.userId), isNull(users.disabledAt)))
    .where(
      and(
        eq(youtubeKeepRules.enabled, true),
        where.userId ? eq(youtubeKeepRules.userId, where.userId) : undefined,
        where.channelId ? eq(youtubeKeepRules.channelId, where.channelId) : undefined,
      ),
    )
    .orderBy(youtubeKeepRules.userId, youtubeKeepRules.channelId)
    .then((rows) => rows.map((r) => r.rule))
}

/** Applies the matching rules and brings each touched video's file in line. */
export async function applyRules(ctx: AppContext, where: { userId?: string; channelId?: string } = {}): Promise<void> {
  const touched = new Set<string>()
  for (const rule of await activeRules(ctx.db, where)) for (const v of await applyRule(ctx, rule)) touched.add(v)
  for (const v of touched) await keepHooks.sync(ctx, v)
}

/** Everything (the hourly run): every rule, then every file without a keeper left or not yet asked for. */
export async function applyAllRules(ctx: AppContext): Promise<void> {
  await applyRules(ctx)
  const stale = await ctx.db
    .select({ videoId: youtubeKeptFiles.videoId })
    .from(youtubeKeptFiles)
    .where(sql`not exists (select 1 from ${youtubeKeeps} k where k.video_id = ${youtubeKeptFiles.videoId} and k.removed_at is null and k.error_kind is null)`)
  const unfetched = await ctx.db
    .selectDistinct({ videoId: youtubeKeeps.videoId })
    .from(youtubeKeeps)
    .where(and(isNull(youtubeKeeps.removedAt), isNull(youtubeKeeps.errorKind), sql`not exists (select 1 from ${youtubeKeptFiles} f where f.video_id = ${youtubeKeeps.videoId})`))
  for (const r of [...stale, ...unfetched]) await keepHooks.sync(ctx, r.videoId)
}

/** A video marked watched (or a like or queue entry taken away): the user's rule for its channel runs now. */
export async function afterMarkChange(ctx: AppContext, userId: string, videoId: string): Promise<void> {
  const [v] = await ctx.db.select({ channelId: youtubeVideos.channelId }).from(youtubeVideos).where(eq(youtubeVideos.id, videoId))
  if (v) await applyRules(ctx, { userId, channelId: v.channelId })
}

// a channel's new uploads are kept as soon as its refresh found them
afterChannelRefresh.push((ctx, channelId) => applyRules(ctx, { channelId }))
