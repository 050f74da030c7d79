import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import type { Tx } from '../../db/client.ts'
import { users } from '../../auth/tables.ts'
import { youtubeChannels, youtubeSubscriptions, youtubeVideos } from '../tables.ts'
import { cutOf, feedEpisodes } from './episode-queries.ts'
import { getSponsorblock, type SponsorblockSettings, sponsorblockOf } from './settings.ts'
import { skippedVideos } from './skips.ts'
import { youtubePodcasts, youtubePodcastSecrets, youtubeSponsorblockSettings } from './tables.ts'

/**
 * The podcasts' SQL (docs/decisions/193): switches, feed secrets and a person's feed episodes.
 * The logic is in podcasts.ts, the feeds' XML in feed-xml.ts, their routes in feed-routes.ts.
 */
/** What a feed secret looks like (anything else is 404 without a query). */
export const SECRET = /^[A-Za-z0-9_-]{32,64}$/

const newSecret = () => Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64url')

export async function isFollowed(db: Tx, userId: string, channelId: string): Promise<boolean> {
  const [row] = await db
    .select({ c: youtubeSubscriptions.channelId })
    .from(youtubeSubscriptions)
    .where(and(eq(youtubeSubscriptions.userId, userId), eq(youtubeSubscriptions.channelId, channelId), isNull(youtubeSubscriptions.deletedAt)))
  return !!row
}

export async function secretOf(db: Tx, userId: string): Promise<string> {
  const [row] = await db.select().from(youtubePodcastSecrets).where(eq(youtubePodcastSecrets.userId, userId))
  if (row) return row.secret
  const secret = newSecret()
  await db.insert(youtubePodcastSecrets).values({ userId, secret, firstSecret: secret }).onConflictDoNothing()
  return (await db.select().from(youtubePodcastSecrets).where(eq(youtubePodcastSecrets.userId, userId)))[0]!.secret
}

export async function rotateSecret(db: Tx, userId: string) {
  const secret = newSecret()
  await db
    .insert(youtubePodcastSecrets)
    .values({ userId, secret, firstSecret: secret })
    .onConflictDoUpdate({ target: youtubePodcastSecrets.userId, set: { secret, createdAt: sql`now()` } })
}

/** The owner of a feed secret; null for an unknown one, or a disabled owner's (their feeds end at once). */
export async function userOfSecret(db: Tx, secret: string): Promise<string | null> {
  if (!SECRET.test(secret)) return null
  const [row] = await db
    .select({ userId: youtubePodcastSecrets.userId })
    .from(youtubePodcastSecrets)
    .innerJoin(users, and(eq(users.id, youtubePodcastSecrets.userId), isNull(users.disabledAt)))
    .where(eq(youtubePodcastSecrets.secret, secret))
  return row?.userId ?? null
}

/** The owner of a feed secret (as userOfSecret) with their SponsorBlock choices, in one query. */
export async function ownerWithSettings(db: Tx, secret: string): Promise<{ userId: string; settings: SponsorblockSettings } | null> {
  if (!SECRET.test(secret)) return null
  const [row] = await db
    .select({ userId: youtubePodcastSecrets.userId, categories: youtubeSponsorblockSettings.categories })
    .from(youtubePodcastSecrets)
    .innerJoin(users, and(eq(users.id, youtubePodcastSecrets.userId), isNull(users.disabledAt)))
    .leftJoin(youtubeSponsorblockSettings, eq(youtubeSponsorblockSettings.userId, youtubePodcastSecrets.userId))
    .where(eq(youtubePodcastSecrets.secret, secret))
  return row ? { userId: row.userId, settings: sponsorblockOf(row.categories) } : null
}

/** The channel's newest `keepLast` plain videos (not shorts, live or upcoming): the episodes it should have. */
export async function newestVideos(db: Tx, channelId: string, keepLast: number) {
  return db
    .select()
    .from(youtubeVideos)
    .where(and(eq(youtubeVideos.channelId, channelId), eq(youtubeVideos.kind, 'video')))
    .orderBy(desc(youtubeVideos.publishedAt), desc(youtubeVideos.id))
    .limit(keepLast)
}

/** The user's podcast switch of a channel, if any. */
export async function podcastOf(db: Tx, userId: string, channelId: string) {
  const [row] = await db.select().from(youtubePodcasts).where(and(eq(youtubePodcasts.userId, userId), eq(youtubePodcasts.channelId, channelId)))
  return row
}

export async function savePodcast(db: Tx, userId: string, channelId: string, enabled: boolean, keepLast: number) {
  await db
    .insert(youtubePodcasts)
    .values({ userId, channelId, enabled, keepLast })
    .onConflictDoUpdate({ target: [youtubePodcasts.userId, youtubePodcasts.channelId], set: { enabled, keepLast, updatedAt: sql`now()` } })
}

/** The user's enabled podcasts with their channel. */
export async function enabledPodcasts(db: Tx, userId: string) {
  return db
    .select({ channelId: youtubePodcasts.channelId, keepLast: youtubePodcasts.keepLast, title: youtubeChannels.title, thumbnail: youtubeChannels.thumbnail })
    .from(youtubePodcasts)
    .innerJoin(youtubeChannels, eq(youtubeChannels.id, youtubePodcasts.channelId))
    .innerJoin(
      youtubeSubscriptions,
      and(eq(youtubeSubscriptions.userId, youtubePodcasts.userId), eq(youtubeSubscriptions.channelId, youtubePodcasts.channelId), isNull(youtubeSubscriptions.deletedAt)),
    )
    .where(and(eq(youtubePodcasts.userId, userId), eq(youtubePodcasts.enabled, true)))
    .orderBy(youtubeChannels.title, youtubeChannels.id)
}

/** A user's feed: the newest keepLast ready episodes with the user's skip categories cut out, less those they took out (skips.ts). */
export async function userFeedEpisodes(db: Tx, userId: string, channelId: string, keepLast: number) {
  const skipped = await skippedVideos(db, userId)
  return (await feedEpisodes(db, channelId, keepLast, cutOf(await getSponsorblock(db, userId)))).filter((e) => !skipped.has(e.video.id))
}

export type FeedEpisode = Awaited<ReturnType<typeof userFeedEpisodes>>[number]
