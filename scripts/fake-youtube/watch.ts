import { xml } from './feed.ts'
import type { FakeYoutube } from './server.ts'

// A video's watch page (`/watch?v=<id>`), the page yt-dlp reads when the demo's yt-dlp
// (scripts/fake-youtube/ytdlp.ts) sends it here instead of www.youtube.com. It is not
// YouTube's page: yt-dlp's generic extractor reads it as one video with an HTML5 player
// of two sources, the WebM clip (VP8/Opus, 180 p) and its Opus audio alone, so listen
// mode's "best audio" takes the audio and keeping takes the video with it, as they do on
// YouTube. The thumbnail is a JPEG (kept videos write it as `-thumb.jpg`).

export function watchPage(fake: FakeYoutube, videoId: string | null): Response {
  fake.watchRequests++
  const v = videoId ? fake.videos.get(videoId) : undefined
  if (!v || !fake.clip) return new Response('<html><head><title>YouTube</title></head><body>Video unavailable</body></html>', { status: 404, headers: { 'content-type': 'text/html; charset=utf-8' } })
  const channel = fake.channels.get(v.channelId)
  const thumb = `${fake.url}/vi/${v.id}/hqdefault.jpg`
  const body = `<!DOCTYPE html><html lang="en"><head>
<title>${xml(v.title)}</title>
<meta property="og:title" content="${xml(v.title)}">
<meta property="og:image" content="${thumb}">
<meta name="author" content="${xml(channel?.title ?? '')}">
</head><body>
<video controls poster="${thumb}">
<source src="/media/${v.id}.mpd" type="application/dash+xml">
</video>
</body></html>`
  return new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8' } })
}

/**
 * The video's DASH manifest, as YouTube's formats are: the video alone and the audio
 * alone, each one whole file (no segments), so yt-dlp picks and merges them itself.
 */
export function dashManifest(fake: FakeYoutube, videoId: string): Response {
  const v = fake.videos.get(videoId)
  if (!v || !fake.clip) return new Response('Not Found', { status: 404 })
  const base = `${fake.url}/media/${v.id}`
  const body = `<?xml version="1.0" encoding="UTF-8"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT${v.duration}S" minBufferTime="PT2S" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011">
<Period>
<AdaptationSet mimeType="video/webm" contentType="video"><Representation id="180p" codecs="vp8" width="320" height="180" frameRate="15" bandwidth="150000"><BaseURL>${base}.video.webm</BaseURL></Representation></AdaptationSet>
<AdaptationSet mimeType="audio/webm" contentType="audio" lang="en"><Representation id="opus" codecs="opus" audioSamplingRate="48000" bandwidth="32000"><BaseURL>${base}.weba</BaseURL></Representation></AdaptationSet>
</Period>
</MPD>`
  return new Response(body, { headers: { 'content-type': 'application/dash+xml' } })
}
