import { xmlText as x } from '../../lib/xml.ts'
import type { FeedEpisode } from './podcast-queries.ts'
import { PODCAST_NAMESPACE } from './podcasting20.ts'

/**
 * The feeds' XML (docs/decisions/193): RSS 2.0 with the iTunes and Podcast namespaces, and OPML.
 * Every text and attribute goes through the one escaping helper (src/lib/xml.ts).
 */

/** "SponsorBlock: 0:42 of skipped parts cut out.", under an episode's description. */
const cutNotice = (seconds: number) => `SponsorBlock: ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')} of skipped parts cut out.`
const duration = (seconds: number) => {
  const s = Math.max(0, Math.round(seconds))
  return `${Math.floor(s / 3600)}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`
}

/** One episode; `root` is `<app>/feeds/<secret>`, `app` the app's own address. */
export function itemXml(root: string, app: string, e: FeedEpisode): string {
  const url = `${root}/audio/${e.video.id}.mp3`
  const cut = Math.round(e.episode.removed)
  const description = cut > 0 ? `${e.video.description}\n\n${cutNotice(cut)}` : e.video.description
  return [
    '<item>',
    `<title>${x(e.video.title)}</title>`,
    `<guid isPermaLink="false">${x(e.video.id)}</guid>`,
    `<pubDate>${e.video.publishedAt.toUTCString()}</pubDate>`,
    `<enclosure url="${x(url)}" length="${e.episode.size ?? 0}" type="audio/mpeg"/>`,
    `<itunes:duration>${duration(e.episode.duration ?? e.video.duration)}</itunes:duration>`,
    `<description>${x(description)}</description>`,
    `<link>${x(`${app}/youtube/video/${e.video.id}`)}</link>`,
    // Podcasting 2.0 (docs/decisions/291): made when the episode was cut, in its file's time
    ...(e.episode.chapterCount > 0 ? [`<podcast:chapters url="${x(`${root}/chapters/${e.video.id}.json`)}" type="application/json+chapters"/>`] : []),
    ...(e.episode.transcriptLang
      ? [`<podcast:transcript url="${x(`${root}/transcript/${e.video.id}.vtt`)}" type="text/vtt" language="${x(e.episode.transcriptLang)}"/>`]
      : []),
    '</item>',
  ].join('\n')
}

export interface FeedChannel {
  title: string
  link: string
  description: string
  image: string
  author: string
}

export function rssXml(c: FeedChannel, items: string[], podcasting20: string[] = []): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:podcast="${PODCAST_NAMESPACE}">`,
    '<channel>',
    `<title>${x(c.title)}</title>`,
    `<link>${x(c.link)}</link>`,
    `<description>${x(c.description)}</description>`,
    ...(c.image ? [`<itunes:image href="${x(c.image)}"/>`] : []),
    `<itunes:author>${x(c.author)}</itunes:author>`,
    '<itunes:explicit>false</itunes:explicit>',
    ...podcasting20,
    ...items,
    '</channel>',
    '</rss>',
    '',
  ].join('\n')
}

/** The OPML list of the feeds. */
export function opmlXml(feeds: { title: string; url: string }[]): string {
  const outlines = feeds.map((f) => `<outline type="rss" text="${x(f.title)}" title="${x(f.title)}" xmlUrl="${x(f.url)}"/>`)
  return ['<?xml version="1.0" encoding="UTF-8"?>', '<opml version="2.0">', '<head><title>Tunefeed podcasts</title></head>', '<body>', ...outlines, '</body>', '</opml>', ''].join('\n')
}
