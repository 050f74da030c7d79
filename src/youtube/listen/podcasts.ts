import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import { Hono } from 'hono'
import { z } from 'zod'
import type { AppContext, AppEnv } from '../../context.ts'
import type { Tx } from '../../db/client.ts'
import { fail } from '../../lib/errors.ts'
import { sendFile, sendStored } from '../../lib/send-file.ts'
import { users } from '../../auth/tables.ts'
import { audioKey } from './audio.ts'
import { youtubeChannels, youtubeSubscriptions, youtubeVideos } from '../tables.ts'
import { channelArt } from './art.ts'
import { cutOf, enabledPodcastCuts, feedEpisodes } from './episode-queries.ts'
import { type EpisodeRequest, requestEpisode } from './episodes.ts'
import { episodeSummary } from './episode-status.ts'
import { channelTags, PODCAST_NAMESPACE } from './podcasting20.ts'
import { getSponsorblock } from './settings.ts'
import { skippedVideos } from './skips.ts'
import { youtubePodcasts, youtubePodcastSecrets } from './tables.ts'

/**
 * Followed channels as private podcasts (docs/decisions/193): per-channel
 * switch with keepLast, feed URLs under a per-user secret, RSS 2.0 with the
 * iTunes namespace, OPML, episode audio from listen mode's cache.
 */
export const podcastBody = z.object({
  enabled: z.boolean({ error: (i) => (i.input === undefined ? 'Required' : 'must be true or false') }),
  keepLast: z.number({ error: 'must be a number' }).int('must be an integer').min(1, 'must be at least 1').max(100, 'must be at most 100').optional(),
})

export const DEFAULT_KEEP_LAST = 10
const SECRET = /^[A-Za-z0-9_-]{32,64}$/

const newSecret = () => Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64url')

export async function isFollowed(db: Tx, userId: string, channelId: string): Promise<boolean> {
  const [row] = await db
    .select({ c: youtubeSubscriptions.channelId })
    .from(youtubeSubscriptions)
    .where(and(eq(youtubeSubscriptions.userId, userId), eq(youtubeSubscriptions.channelId, channelId), isNull(youtubeSubscriptions.deletedAt)))
  return !!row
}

async function secretOf(db: Tx, userId: string): Promise<string> {
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
async function userOfSecret(db: Tx, secret: string): Promise<string | null> {
  if (!SECRET.test(secret)) return null
  const [row] = await db
    .select({ userId: youtubePodcastSecrets.userId })
    .from(youtubePodcastSecrets)
    .innerJoin(users, and(eq(users.id, youtubePodcastSecrets.userId), isNull(users.disabledAt)))
    .where(eq(youtubePodcastSecrets.secret, secret))
  return row?.userId ?? null
}

/** The channel's newest `keepLast` plain videos (not shorts, live or upcoming): the episodes it should have. */
async function newestVideos(db: Tx, channelId: string, keepLast: number) {
  return db
    .select()
    .from(youtubeVideos)
    .where(and(eq(youtubeVideos.channelId, channelId), eq(youtubeVideos.kind, 'video')))
    .orderBy(desc(youtubeVideos.publishedAt), desc(youtubeVideos.id))
    .limit(keepLast)
}

/**
 * Queues the audio of every episode the podcast should have and does not (paced like every
 * fetch). With `retryFailed` false (the schedule), a failed fetch is left alone: the user's
 * switch or listen mode starts it again.
 */
export async function fetchEpisodes(ctx: AppContext, channelId: string, keepLast: number, cut: string, opts: EpisodeRequest) {
  for (const v of await newestVideos(ctx.db, channelId, keepLast)) await requestEpisode(ctx, v.id, cut, opts)
}

/**
 * Every enabled podcast's channel (once per set of skip categories, with the largest keepLast):
 * new uploads become episodes; episodes made while SponsorBlock was down are cut now.
 */
export async function fetchAllEpisodes(ctx: AppContext, channelId?: string) {
  const wanted = new Map<string, { channelId: string; cut: string; keepLast: number; userId: string }>()
  for (const p of await enabledPodcastCuts(ctx.db, { channelId })) {
    const key = `${p.channelId}|${p.cut}`
    if ((wanted.get(key)?.keepLast ?? 0) < p.keepLast) wanted.set(key, p)
  }
  for (const w of wanted.values()) await fetchEpisodes(ctx, w.channelId, w.keepLast, w.cut, { owner: w.userId, retryFailed: false, remakeUncut: true })
}

/** The user's episodes with their skip categories now (after a change of them). */
export async function fetchUserEpisodes(ctx: AppContext, userId: string) {
  const cut = cutOf(await getSponsorblock(ctx.db, userId))
  for (const p of await enabledPodcasts(ctx.db, userId)) await fetchEpisodes(ctx, p.channelId, p.keepLast, cut, { owner: userId })
}

/** The user's enabled podcasts with their channel. */
async function enabledPodcasts(db: Tx, userId: string) {
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
async function episodes(db: Tx, userId: string, channelId: string, keepLast: number) {
  const skipped = await skippedVideos(db, userId)
  return (await feedEpisodes(db, channelId, keepLast, cutOf(await getSponsorblock(db, userId)))).filter((e) => !skipped.has(e.video.id))
}

const base = (ctx: AppContext, reqUrl: string) => (ctx.env.PUBLIC_URL ?? new URL(reqUrl).origin).replace(/\/$/, '')

export async function podcastsJson(ctx: AppContext, userId: string, reqUrl: string) {
  const root = `${base(ctx, reqUrl)}/feeds/${await secretOf(ctx.db, userId)}`
  const feeds = []
  for (const p of await enabledPodcasts(ctx.db, userId)) {
    feeds.push({
      channelId: p.channelId,
      title: p.title,
      url: `${root}/channel/${p.channelId}.xml`,
      episodes: (await episodes(ctx.db, userId, p.channelId, p.keepLast)).length,
      keepLast: p.keepLast,
      ...(await episodeSummary(ctx.db, userId, p.channelId, p.keepLast)),
    })
  }
  return { feeds, allUrl: `${root}/all.xml`, opmlUrl: `${root}/feeds.opml` }
}

/**
 * PODCAST_MAX_EPISODES caps the sum of keepLast over one person's enabled podcasts (docs/decisions/220):
 * each episode is a fetch through the shared YouTube gate and a file on the server's disk.
 */
async function checkEpisodeCap(ctx: AppContext, userId: string, channelId: string, keepLast: number) {
  const others = (await enabledPodcasts(ctx.db, userId)).filter((p) => p.channelId !== channelId).reduce((sum, p) => sum + p.keepLast, 0)
  const max = ctx.env.PODCAST_MAX_EPISODES
  if (others + keepLast > max) {
    const room = Math.max(0, max - others)
    fail(
      422,
      room > 0
        ? `keepLast: Your podcasts may keep at most ${max} episodes in all; ${others} are taken by your other podcasts, so this one may keep at most ${room}.`
        : `keepLast: Your podcasts may keep at most ${max} episodes in all, and your other podcasts take them all. Lower "Keep the last" on another podcast first.`,
    )
  }
}

export async function setPodcast(ctx: AppContext, userId: string, channelId: string, enabled: boolean, keepLast: number | undefined) {
  if (!(await isFollowed(ctx.db, userId, channelId))) fail(404, 'Subscription not found.')
  const [current] = await ctx.db.select().from(youtubePodcasts).where(and(eq(youtubePodcasts.userId, userId), eq(youtubePodcasts.channelId, channelId)))
  const keep = keepLast ?? current?.keepLast ?? DEFAULT_KEEP_LAST
  if (enabled) await checkEpisodeCap(ctx, userId, channelId, keep)
  await ctx.db
    .insert(youtubePodcasts)
    .values({ userId, channelId, enabled, keepLast: keep })
    .onConflictDoUpdate({ target: [youtubePodcasts.userId, youtubePodcasts.channelId], set: { enabled, keepLast: keep, updatedAt: sql`now()` } })
  if (enabled) await fetchEpisodes(ctx, channelId, keep, cutOf(await getSponsorblock(ctx.db, userId)), { owner: userId })
  return { enabled, keepLast: keep }
}

// ---- feeds ----

const xml = (s: string) => s.replace(/[<>&'"]/g, (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[ch]!)
// control characters other than tab and newlines are not allowed in XML 1.0
const text = (s: string) => xml(s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, ''))
/** "SponsorBlock: 0:42 of skipped parts cut out.", under an episode's description. */
const cutNotice = (seconds: number) => `SponsorBlock: ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')} of skipped parts cut out.`
const duration = (seconds: number) => {
  const s = Math.max(0, Math.round(seconds))
  return `${Math.floor(s / 3600)}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`
}

type Episode = Awaited<ReturnType<typeof episodes>>[number]

function itemXml(root: string, app: string, e: Episode): string {
  const url = `${root}/audio/${e.video.id}.mp3`
  const cut = Math.round(e.episode.removed)
  const description = cut > 0 ? `${e.video.description}\n\n${cutNotice(cut)}` : e.video.description
  return [
    '<item>',
    `<title>${text(e.video.title)}</title>`,
    `<guid isPermaLink="false">${e.video.id}</guid>`,
    `<pubDate>${e.video.publishedAt.toUTCString()}</pubDate>`,
    `<enclosure url="${xml(url)}" length="${e.episode.size ?? 0}" type="audio/mpeg"/>`,
    `<itunes:duration>${duration(e.episode.duration ?? e.video.duration)}</itunes:duration>`,
    `<description>${text(description)}</description>`,
    `<link>${xml(`${app}/youtube/video/${e.video.id}`)}</link>`,
    '</item>',
  ].join('\n')
}

function rssXml(c: { title: string; link: string; description: string; image: string; author: string }, items: string[], podcasting20: string[] = []): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:podcast="${PODCAST_NAMESPACE}">`,
    '<channel>',
    `<title>${text(c.title)}</title>`,
    `<link>${xml(c.link)}</link>`,
    `<description>${text(c.description)}</description>`,
    ...(c.image ? [`<itunes:image href="${xml(c.image)}"/>`] : []),
    `<itunes:author>${text(c.author)}</itunes:author>`,
    '<itunes:explicit>false</itunes:explicit>',
    ...podcasting20,
    ...items,
    '</channel>',
    '</rss>',
    '',
  ].join('\n')
}

/** The body with a strong ETag of its bytes; 304 when If-None-Match has it. */
function withEtag(req: Request, body: string, type: string): Response {
  const etag = `"${new Bun.CryptoHasher('sha256').update(body).digest('hex').slice(0, 32)}"`
  const headers = { 'Content-Type': type, ETag: etag, 'Cache-Control': 'private, no-cache' }
  const match = req.headers.get('if-none-match')
  if (match?.split(',').some((m) => m.trim().replace(/^W\//, '') === etag)) return new Response(null, { status: 304, headers: { ETag: etag } })
  return new Response(req.method === 'HEAD' ? null : body, { status: 200, headers })
}

const notFound = () => fail(404, 'Not found.')

/** `/feeds/<secret>/...`: no cookie, the secret is the credential; anything unknown is 404. */
export function feedRoutes(ctx: AppContext) {
  const { db } = ctx
  const owner = async (secret: string) => (await userOfSecret(db, secret)) ?? notFound()
  return new Hono<AppEnv>()
    .get('/:secret/channel/:file', async (c) => {
      const userId = await owner(c.req.param('secret'))
      const channelId = /^(.+)\.xml$/.exec(c.req.param('file'))?.[1] ?? notFound()
      const p = (await enabledPodcasts(db, userId)).find((x) => x.channelId === channelId) ?? notFound()
      const app = base(ctx, c.req.url)
      const root = `${app}/feeds/${c.req.param('secret')}`
      const items = (await episodes(db, userId, p.channelId, p.keepLast)).map((e) => itemXml(root, app, e))
      const body = rssXml(
        { title: p.title, link: `${app}/youtube/channel/${p.channelId}`, description: `${p.title}: the newest ${p.keepLast} videos as audio.`, image: `${root}/art/${p.channelId}.jpg`, author: p.title },
        items,
        await channelTags(db, userId, app, `channel/${p.channelId}.xml`),
      )
      return withEtag(c.req.raw, body, 'application/rss+xml; charset=utf-8')
    })
    .get('/:secret/all.xml', async (c) => {
      const userId = await owner(c.req.param('secret'))
      const app = base(ctx, c.req.url)
      const root = `${app}/feeds/${c.req.param('secret')}`
      const all: Episode[] = []
      const enabled = await enabledPodcasts(db, userId)
      for (const p of enabled) all.push(...(await episodes(db, userId, p.channelId, p.keepLast)))
      all.sort((x, y) => y.video.publishedAt.getTime() - x.video.publishedAt.getTime() || (y.video.id > x.video.id ? 1 : -1))
      const body = rssXml(
        { title: 'Tunefeed: all podcasts', link: `${app}/youtube`, description: 'Every channel you listen to as a podcast.', image: enabled[0] ? `${root}/art/${enabled[0].channelId}.jpg` : '', author: 'Tunefeed' },
        all.map((e) => itemXml(root, app, e)),
        await channelTags(db, userId, app, 'all.xml'),
      )
      return withEtag(c.req.raw, body, 'application/rss+xml; charset=utf-8')
    })
    .get('/:secret/feeds.opml', async (c) => {
      const userId = await owner(c.req.param('secret'))
      const root = `${base(ctx, c.req.url)}/feeds/${c.req.param('secret')}`
      const outlines = (await enabledPodcasts(db, userId)).map(
        (p) => `<outline type="rss" text="${xml(p.title)}" title="${xml(p.title)}" xmlUrl="${xml(`${root}/channel/${p.channelId}.xml`)}"/>`,
      )
      const body = ['<?xml version="1.0" encoding="UTF-8"?>', '<opml version="2.0">', '<head><title>Tunefeed podcasts</title></head>', '<body>', ...outlines, '</body>', '</opml>', ''].join('\n')
      return withEtag(c.req.raw, body, 'text/x-opml; charset=utf-8')
    })
    .get('/:secret/art/:file', async (c) => {
      const userId = await owner(c.req.param('secret'))
      const channelId = /^(.+)\.jpg$/.exec(c.req.param('file'))?.[1] ?? notFound()
      const p = (await enabledPodcasts(db, userId)).find((x) => x.channelId === channelId) ?? notFound()
      const path = (await channelArt(ctx, p.channelId, p.thumbnail, c.req.raw.signal)) ?? notFound()
      const res = await sendFile(c.req.raw, path, { filename: `${p.channelId}.jpg`, type: 'image/jpeg', inline: true })
      res.headers.set('Cache-Control', 'private, max-age=86400')
      return res
    })
    .get('/:secret/audio/:file', async (c) => {
      const userId = await owner(c.req.param('secret'))
      const videoId = /^([\w-]{11})\.mp3$/.exec(c.req.param('file'))?.[1] ?? notFound()
      // only an episode of one of the user's feeds, as the feed lists it
      const [v] = await db.select({ channelId: youtubeVideos.channelId }).from(youtubeVideos).where(eq(youtubeVideos.id, videoId))
      const p = (v && (await enabledPodcasts(db, userId)).find((x) => x.channelId === v.channelId)) || notFound()
      const e = (await episodes(db, userId, p.channelId, p.keepLast)).find((x) => x.video.id === videoId) ?? notFound()
      try {
        // never a redirect: many podcast apps follow none
        return await sendStored(c.req.raw, ctx.storage.store, audioKey(`podcast/${e.episode.file!}`), { filename: `${videoId}.mp3`, type: 'audio/mpeg', inline: true })
      } catch {
        return notFound()
      }
    })
}
