import type { FakeYoutube } from './server.ts'

// Each channel's Atom feed, as www.youtube.com/feeds/videos.xml serves it.

const FEED_ENTRIES = 15

export const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

export function feed(fake: FakeYoutube, channelId: string | null): Response {
  fake.feedRequests++
  if (fake.feedDown) return new Response('<html><body>Internal Server Error</body></html>', { status: 500 })
  const channel = channelId ? fake.channels.get(channelId) : undefined
  if (!channel) return new Response('<html><body>Not Found</body></html>', { status: 404, headers: { 'content-type': 'text/html' } })
  const link = `https://www.youtube.com/channel/${channel.id}`
  const entries = channel.uploads.slice(0, FEED_ENTRIES).map((id) => {
    const v = fake.videos.get(id)!
    return ` <entry>
<id>yt:video:${id}</id>
<yt:videoId>${id}</yt:videoId>
<yt:channelId>${channel.id}</yt:channelId>
<title>${xml(v.title)}</title>
<link rel="alternate" href="${v.kind === 'short' ? `https://www.youtube.com/shorts/${id}` : `https://www.youtube.com/watch?v=${id}`}"/>
<author>
 <name>${xml(channel.title)}</name>
 <uri>${link}</uri>
</author>
<published>${v.publishedAt.toISOString().replace(/\.\d{3}Z$/, '+00:00')}</published>
<updated>${v.publishedAt.toISOString().replace(/\.\d{3}Z$/, '+00:00')}</updated>
<media:group>
 <media:title>${xml(v.title)}</media:title>
 <media:content url="https://www.youtube.com/v/${id}?version=3" type="application/x-shockwave-flash" width="640" height="390"/>
 <media:thumbnail url="${fake.url}/vi/${id}/hqdefault.svg" width="480" height="360"/>
 <media:description>${xml(v.description)}</media:description>
 <media:community>
  <media:starRating count="0" average="0.00" min="1" max="5"/>
  <media:statistics views="0"/>
 </media:community>
</media:group>
 </entry>`
  })
  const body = `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns:yt="http://www.youtube.com/xml/schemas/2015" xmlns:media="http://search.yahoo.com/mrss/" xmlns="http://www.w3.org/2005/Atom">
 <link rel="self" href="http://www.youtube.com/feeds/videos.xml?channel_id=${channel.id}"/>
 <id>yt:channel:${channel.id.slice(2)}</id>
 <yt:channelId>${channel.id.slice(2)}</yt:channelId>
 <title>${xml(channel.title)}</title>
 <link rel="alternate" href="${link}"/>
 <author>
<name>${xml(channel.title)}</name>
<uri>${link}</uri>
 </author>
 <published>${channel.publishedAt.toISOString().replace(/\.\d{3}Z$/, '+00:00')}</published>
${entries.join('\n')}
</feed>
`
  return new Response(body, { headers: { 'content-type': 'text/xml; charset=UTF-8' } })
}
