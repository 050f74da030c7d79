import { xml } from './feed.ts'
import type { FakeYoutube } from './server.ts'

// A channel's public page (`/channel/UC...` and `/@handle`), reduced to the head a
// keyless client reads: the canonical link, Open Graph tags and the itemprop ones,
// spelled as www.youtube.com spells them.

export function channelPage(fake: FakeYoutube, ref: string): Response {
  fake.pageRequests++
  const id = ref.startsWith('@') ? fake.handles.get(decodeURIComponent(ref).toLowerCase()) : ref
  const c = id ? fake.channels.get(id) : undefined
  if (!c) return new Response('<html><head><title>404 Not Found</title></head><body>This page isn\'t available.</body></html>', { status: 404, headers: { 'content-type': 'text/html; charset=utf-8' } })
  const url = `https://www.youtube.com/channel/${c.id}`
  const avatar = `${fake.url}/channel-art/${c.id}.svg?s=900`
  const body = `<!DOCTYPE html><html lang="en"><head>
<title>${xml(c.title)} - YouTube</title>
<meta name="title" content="${xml(c.title)}">
<meta name="description" content="${xml(c.description)}">
<link rel="canonical" href="${url}">
<meta property="og:site_name" content="YouTube">
<meta property="og:url" content="${url}">
<meta property="og:title" content="${xml(c.title)}">
<meta property="og:image" content="${avatar}">
<meta property="og:image:width" content="900">
<meta property="og:image:height" content="900">
<meta property="og:description" content="${xml(c.description)}">
<meta property="og:type" content="profile">
<link rel="alternate" type="application/rss+xml" title="RSS" href="https://www.youtube.com/feeds/videos.xml?channel_id=${c.id}">
</head><body><div id="watch7-content" class="watch-main-col" itemscope itemid="" itemtype="http://schema.org/YoutubeChannelV2">
<meta itemprop="name" content="${xml(c.title)}">
<link itemprop="url" href="http://www.youtube.com/${xml(c.handle)}">
<meta itemprop="identifier" content="${c.id}">
<span itemprop="author" itemscope itemtype="http://schema.org/Person"><link itemprop="url" href="http://www.youtube.com/${xml(c.handle)}"><link itemprop="name" content="${xml(c.title)}"></span>
</div></body></html>`
  return new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8' } })
}
