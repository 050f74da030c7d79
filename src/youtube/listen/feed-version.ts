import { sql } from 'drizzle-orm'
import type { Tx } from '../../db/client.ts'
import { rowsOf } from '../../db/rows.ts'

/**
 * A feed's ETag from what it is made of (issue 37 "Speed", docs/decisions/290), so that a
 * revalidation is answered 304 after one query, without building the XML: the owner (active),
 * the first secret (podcast:guid), the podcasts in it (keepLast, switch time, channel title),
 * the owner's SponsorBlock settings (the cut), the episodes they took out, and every ready
 * episode of those channels' plain videos, all cuts (file, size, duration, spans, whether it has chapters and a transcript). Anything else in the body is a function of these, of the app's address and of
 * FEED_FORMAT. A change to another cut's episode also changes the tag: a 200 too many, never a
 * 304 too many. Video titles and descriptions are stored once and not updated (queries/videos.ts).
 */

/** Raised when the feed's XML changes shape, so that a new version of the app answers 200 once. */
const FEED_FORMAT = 'feed-3'

interface VersionRow {
  user_id: string
  first_secret: string | null
  pods: string | null
  sb: string | null
  skips: string | null
  eps: string | null
}

/**
 * The owner of `secret` and the ETag of its feed (one channel's, or all its podcasts' with
 * `channelId` null; `empty`: no such podcast on); null for an unknown or disabled owner.
 */
export async function feedVersion(db: Tx, secret: string, channelId: string | null, app: string): Promise<{ userId: string; etag: string; empty: boolean } | null> {
  const [row] = rowsOf<VersionRow>(
    await db.execute(sql`
      with owner as (
        select s.user_id, s.first_secret from youtube_podcast_secrets s
        join users u on u.id = s.user_id and u.disabled_at is null
        where s.secret = ${secret}
      ), pods as (
        select p.channel_id, p.keep_last, p.updated_at, c.title from youtube_podcasts p
        join owner o on o.user_id = p.user_id
        join youtube_channels c on c.id = p.channel_id
        join youtube_subscriptions sub on sub.user_id = p.user_id and sub.channel_id = p.channel_id and sub.deleted_at is null
        where p.enabled and (${channelId}::text is null or p.channel_id = ${channelId})
      )
      select o.user_id, o.first_secret,
        (select string_agg(concat_ws(',', channel_id, keep_last, updated_at, md5(title)), ';' order by channel_id) from pods) as pods,
        (select updated_at::text from youtube_sponsorblock_settings where user_id = o.user_id) as sb,
        (select md5(string_agg(video_id, ',' order by video_id)) from youtube_podcast_skips where user_id = o.user_id) as skips,
        (select md5(string_agg(concat_ws(',', e.video_id, e.cut, e.file, e.size, e.duration, e.removed, e.spans::text, e.uncut, e.chapter_count, e.transcript_lang, e.created_at, v.published_at, md5(v.title)), ';' order by e.video_id, e.cut))
          from youtube_podcast_episodes e join youtube_videos v on v.id = e.video_id
          where e.state = 'ready' and v.kind = 'video' and v.channel_id in (select channel_id from pods)) as eps
      from owner o`),
  )
  if (!row) return null
  const tag = new Bun.CryptoHasher('sha256')
    .update([FEED_FORMAT, app, secret, channelId ?? '*', row.first_secret, row.pods, row.sb, row.skips, row.eps].join('\n'))
    .digest('hex')
    .slice(0, 32)
  return { userId: row.user_id, etag: `"${tag}"`, empty: row.pods === null }
}

/** Whether If-None-Match holds `etag` (weak or strong). */
export const etagMatches = (req: Request, etag: string) =>
  !!req.headers
    .get('if-none-match')
    ?.split(',')
    .some((m) => m.trim().replace(/^W\//, '') === etag)
