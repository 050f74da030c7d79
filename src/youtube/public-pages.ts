import type { ApiChannel, ApiVideo } from './client.ts'

// YouTube's public, keyless pages: a channel's Atom feed and its channel page.
// Both are read with the API key or without it; without a key they are the only source
// (docs/decisions/091).

/** One entry of a channel's Atom feed, newest first as the feed lists them. */
export interface FeedEntry {
  videoId: string
  publishedAt: Date
  channelId: string
  title: string
  description: string
  thumbnail: string
  /** The entry links to `/shorts/<id>` rather than `/watch?v=<id>`. */
  short: boolean
}

const decode = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, n) => String.fromCodePoint(Number(n)))
    .replace(/&amp;/g, '&')

const tag = (body: string, name: string) => {
  const m = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`).exec(body)
  return m ? decode(m[1]!).trim() : ''
}

/** The entries of a channel's Atom feed; throws on what is not a feed. */
export function parseFeed(xml: string): FeedEntry[] {
  if (!/<feed[\s>]/.test(xml)) throw new Error('not an Atom feed')
  const entries: FeedEntry[] = []
  for (const [, body] of xml.matchAll(/<entry>([\s\S]*?)<\/entry>/g)) {
    const id = tag(body!, 'yt:videoId')
    const published = tag(body!, 'published')
    const publishedAt = published ? new Date(published) : null
    if (!id || !publishedAt || Number.isNaN(publishedAt.getTime())) continue
    const link = /<link\s[^>]*rel="alternate"[^>]*href="([^"]*)"/.exec(body!)?.[1] ?? ''
    entries.push({
      videoId: id,
      publishedAt,
      channelId: tag(body!, 'yt:channelId'),
      title: tag(body!, 'title') || tag(body!, 'media:title'),
      description: tag(body!, 'media:description'),
      thumbnail: decode(/<media:thumbnail\s[^>]*url="([^"]*)"/.exec(body!)?.[1] ?? ''),
      short: /\/shorts\//.test(decode(link)),
    })
  }
  return entries
}

/**
 * A video as far as the feed knows it: no category (0, never listed), no
 * duration (0, shown as unknown); a Short by its link form.
 */
export function feedVideo(e: FeedEntry, channelId: string): ApiVideo {
  return {
    id: e.videoId,
    channelId: e.channelId || channelId,
    title: e.title,
    description: e.description,
    thumbnail: e.thumbnail,
    publishedAt: e.publishedAt,
    categoryId: 0,
    duration: 0,
    kind: e.short ? 'short' : 'video',
  }
}

const meta = (html: string, attr: 'property' | 'name' | 'itemprop', key: string) => {
  const re = new RegExp(`<meta\\s[^>]*${attr}="${key.replace(/[.:]/g, '\\$&')}"[^>]*>`, 'i')
  const el = re.exec(html)?.[0]
  const content = el && /content="([^"]*)"/i.exec(el)?.[1]
  return content ? decode(content).trim() : ''
}

/**
 * A channel from its public page (`/channel/<id>` or `/@handle`): the
 * canonical link and `og:url` carry the channel id, `og:title` the title,
 * `og:image` the avatar; null when the page shows no channel.
 */
export function parseChannelPage(html: string): ApiChannel | null {
  const canonical = /<link\s[^>]*rel="canonical"[^>]*href="([^"]*)"/i.exec(html)?.[1] ?? meta(html, 'property', 'og:url')
  const id = /\/channel\/(UC[\w-]{22})/.exec(decode(canonical))?.[1] ?? meta(html, 'itemprop', 'identifier')
  if (!/^UC[\w-]{22}$/.test(id)) return null
  const title = meta(html, 'property', 'og:title') || meta(html, 'name', 'title')
  // the page's own vanity link (`/@handle`) when it has one
  const vanity = /<link\s[^>]*itemprop="url"[^>]*href="[^"]*\/(@[\w.-]+)"/i.exec(html)?.[1] ?? null
  return {
    id,
    title,
    handle: vanity ? decode(vanity).toLowerCase() : null,
    thumbnail: meta(html, 'property', 'og:image'),
    uploadsPlaylistId: `UU${id.slice(2)}`,
  }
}
