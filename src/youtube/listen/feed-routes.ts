import { eq } from 'drizzle-orm'
import { Hono } from 'hono'
import type { AppContext, AppEnv } from '../../context.ts'
import { fail } from '../../lib/errors.ts'
import { sendFile, sendStored } from '../../lib/send-file.ts'
import { youtubeVideos } from '../tables.ts'
import { channelArt } from './art.ts'
import { audioKey } from './audio.ts'
import { itemXml, opmlXml, rssXml } from './feed-xml.ts'
import { feedVersion, etagMatches } from './feed-version.ts'
import { enabledPodcasts, type FeedEpisode, ownerWithSettings, SECRET, userFeedEpisodes, userOfSecret } from './podcast-queries.ts'
import { appBase } from './podcasts.ts'
import { channelTags } from './podcasting20.ts'
import { cutOf } from './episode-queries.ts'
import { feedEpisodeText } from './texts.ts'

const notModified = (etag: string) => new Response(null, { status: 304, headers: { ETag: etag, 'Cache-Control': 'private, no-cache' } })

/** The body with `etag` (by default a strong ETag of its bytes); 304 when If-None-Match has it. */
function withEtag(req: Request, body: string, type: string, etag = `"${new Bun.CryptoHasher('sha256').update(body).digest('hex').slice(0, 32)}"`): Response {
  if (etagMatches(req, etag)) return notModified(etag)
  return new Response(req.method === 'HEAD' ? null : body, { status: 200, headers: { 'Content-Type': type, ETag: etag, 'Cache-Control': 'private, no-cache' } })
}

/** A feed's version (feed-version.ts), and the user it belongs to; 404 for an unknown secret. */
async function versionOf(ctx: AppContext, secret: string, channelId: string | null, app: string) {
  if (!SECRET.test(secret)) return notFound()
  const v = (await feedVersion(ctx.db, secret, channelId, app)) ?? notFound()
  // a channel that is not one of the person's podcasts (now) has no feed, whatever the tag
  return channelId && v.empty ? notFound() : v
}

const notFound = () => fail(404, 'Not found.')
const RSS = 'application/rss+xml; charset=utf-8'

/**
 * `/feeds/<secret>/...` (docs/decisions/193): no cookie, the secret is the credential; anything
 * unknown is 404.
 */
export function feedRoutes(ctx: AppContext) {
  const { db } = ctx
  const owner = async (secret: string) => (await userOfSecret(db, secret)) ?? notFound()
  /** Only an episode of one of the user's feeds, as the feed lists it. */
  const episodeOf = async (userId: string, videoId: string | undefined) => {
    if (!videoId) return notFound()
    const [v] = await db.select({ channelId: youtubeVideos.channelId }).from(youtubeVideos).where(eq(youtubeVideos.id, videoId))
    const p = (v && (await enabledPodcasts(db, userId)).find((x) => x.channelId === v.channelId)) || notFound()
    return (await userFeedEpisodes(db, userId, p.channelId, p.keepLast)).find((x) => x.video.id === videoId) ?? notFound()
  }
  return new Hono<AppEnv>()
    .get('/:secret/channel/:file', async (c) => {
      const channelId = /^(.+)\.xml$/.exec(c.req.param('file'))?.[1] ?? notFound()
      const app = appBase(ctx, c.req.url)
      // a revalidation is answered from the feed's version, without building it
      const { userId, etag } = await versionOf(ctx, c.req.param('secret'), channelId, app)
      if (etagMatches(c.req.raw, etag)) return notModified(etag)
      const p = (await enabledPodcasts(db, userId)).find((x) => x.channelId === channelId) ?? notFound()
      const root = `${app}/feeds/${c.req.param('secret')}`
      const items = (await userFeedEpisodes(db, userId, p.channelId, p.keepLast)).map((e) => itemXml(root, app, e))
      const body = rssXml(
        { title: p.title, link: `${app}/youtube/channel/${p.channelId}`, description: `${p.title}: the newest ${p.keepLast} videos as audio.`, image: `${root}/art/${p.channelId}.jpg`, author: p.title },
        items,
        await channelTags(db, userId, app, `channel/${p.channelId}.xml`),
      )
      return withEtag(c.req.raw, body, RSS, etag)
    })
    .get('/:secret/all.xml', async (c) => {
      const app = appBase(ctx, c.req.url)
      const { userId, etag } = await versionOf(ctx, c.req.param('secret'), null, app)
      if (etagMatches(c.req.raw, etag)) return notModified(etag)
      const root = `${app}/feeds/${c.req.param('secret')}`
      const all: FeedEpisode[] = []
      const enabled = await enabledPodcasts(db, userId)
      for (const p of enabled) all.push(...(await userFeedEpisodes(db, userId, p.channelId, p.keepLast)))
      all.sort((x, y) => y.video.publishedAt.getTime() - x.video.publishedAt.getTime() || (y.video.id > x.video.id ? 1 : -1))
      const body = rssXml(
        { title: 'Tunefeed: all podcasts', link: `${app}/youtube`, description: 'Every channel you listen to as a podcast.', image: enabled[0] ? `${root}/art/${enabled[0].channelId}.jpg` : '', author: 'Tunefeed' },
        all.map((e) => itemXml(root, app, e)),
        await channelTags(db, userId, app, 'all.xml'),
      )
      return withEtag(c.req.raw, body, RSS, etag)
    })
    .get('/:secret/feeds.opml', async (c) => {
      const userId = await owner(c.req.param('secret'))
      const root = `${appBase(ctx, c.req.url)}/feeds/${c.req.param('secret')}`
      const feeds = (await enabledPodcasts(db, userId)).map((p) => ({ title: p.title, url: `${root}/channel/${p.channelId}.xml` }))
      return withEtag(c.req.raw, opmlXml(feeds), 'text/x-opml; charset=utf-8')
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
      const e = await episodeOf(await owner(c.req.param('secret')), /^([\w-]{11})\.mp3$/.exec(c.req.param('file'))?.[1])
      try {
        // never a redirect: many podcast apps follow none
        return await sendStored(c.req.raw, ctx.storage.store, audioKey(`podcast/${e.episode.file!}`), { filename: `${e.video.id}.mp3`, type: 'audio/mpeg', inline: true })
      } catch {
        return notFound()
      }
    })
    // Podcasting 2.0 (docs/decisions/291): served as made when the episode was cut
    .get('/:secret/chapters/:file', async (c) => {
      const videoId = /^([\w-]{11})\.json$/.exec(c.req.param('file'))?.[1] ?? notFound()
      const { userId, settings } = (await ownerWithSettings(db, c.req.param('secret'))) ?? notFound()
      const text = (await feedEpisodeText(db, userId, cutOf(settings), videoId, 'chapters')) ?? notFound()
      return new Response(text, { headers: { 'Content-Type': 'application/json+chapters; charset=utf-8', 'Cache-Control': 'private, no-cache' } })
    })
    .get('/:secret/transcript/:file', async (c) => {
      const videoId = /^([\w-]{11})\.vtt$/.exec(c.req.param('file'))?.[1] ?? notFound()
      const { userId, settings } = (await ownerWithSettings(db, c.req.param('secret'))) ?? notFound()
      const text = (await feedEpisodeText(db, userId, cutOf(settings), videoId, 'transcript')) ?? notFound()
      return new Response(text, { headers: { 'Content-Type': 'text/vtt; charset=utf-8', 'Cache-Control': 'private, no-cache' } })
    })
}
