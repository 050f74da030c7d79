import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Tx } from '../../db/client.ts'
import { youtubePodcastSecrets } from './tables.ts'

/**
 * Podcasting 2.0 tags of the feeds (the Podcast Namespace, docs/decisions/265). The feed routes
 * (feed-routes.ts) call these; they keep the namespace's rules in one place.
 */
export const PODCAST_NAMESPACE = 'https://podcastindex.org/namespace/1.0'
/** The Podcast Index's namespace for podcast:guid (UUIDv5). */
const GUID_NAMESPACE = 'ead4c236-bf58-58c6-a2c6-a6b28d128cb6'

/** podcast:guid of a feed address: UUIDv5 of it without scheme and trailing slashes, as the Podcast Index specifies. */
export const podcastGuid = (feedUrl: string) => Bun.randomUUIDv5(feedUrl.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/+$/, ''), GUID_NAMESPACE)

/**
 * The first secret the user was shown: kept when the addresses are rotated, so that the guid
 * stays. A row from before this column holds its current secret as the first (set once here).
 */
export async function firstSecretOf(db: Tx, userId: string): Promise<string | null> {
  const [row] = await db.select().from(youtubePodcastSecrets).where(eq(youtubePodcastSecrets.userId, userId))
  if (!row) return null
  if (row.firstSecret) return row.firstSecret
  await db
    .update(youtubePodcastSecrets)
    .set({ firstSecret: sql`${youtubePodcastSecrets.secret}` })
    .where(and(eq(youtubePodcastSecrets.userId, userId), isNull(youtubePodcastSecrets.firstSecret)))
  const [again] = await db.select({ first: youtubePodcastSecrets.firstSecret }).from(youtubePodcastSecrets).where(eq(youtubePodcastSecrets.userId, userId))
  return again?.first ?? row.secret
}

/** The channel-level Podcasting 2.0 lines of a feed at `<app>/feeds/<secret>/<path>`. */
export async function channelTags(db: Tx, userId: string, app: string, path: string): Promise<string[]> {
  const first = await firstSecretOf(db, userId)
  return first ? [`<podcast:guid>${podcastGuid(`${app}/feeds/${first}/${path}`)}</podcast:guid>`] : []
}
