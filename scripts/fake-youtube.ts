/**
 * A fake YouTube for tests and the offline demo: the Data API v3 endpoints the
 * app uses (channels, playlistItems, videos, subscriptions, videoCategories)
 * with the real parameters, paging tokens, response and error shapes, each
 * channel's Atom feed, and extras the real service does not have: SVG
 * thumbnails, a small VP8/Opus WebM for every video (`/media/<id>.webm`, see
 * docs/decisions/020), watch pages yt-dlp reads (a DASH manifest of the video alone
 * and the audio alone), a SponsorBlock (`/sponsorblock`) and a control API for tests
 * and demos. The whole offline demo (the app with yt-dlp sent here) is scripts/demo.ts.
 *
 *   bun scripts/fake-youtube.ts --port 4010 [--host 127.0.0.1] [--seed 1] [--api-key KEY] [--quota N] [--no-media]
 *
 * Tests import `startFakeYoutube({ port: 0 })`. Data is generated from a seed,
 * so the same seed and `now` always give the same channels and videos.
 *
 * The code is in scripts/fake-youtube/, one module per endpoint group: api.ts
 * (key, quota, paging, errors) with api-channels.ts, api-videos.ts and
 * api-subscriptions.ts; feed.ts; media.ts; watch.ts; sponsorblock.ts; thumbnails.ts;
 * control.ts; ytdlp.ts (the demo's yt-dlp); the
 * generated data in data.ts and the server in server.ts. This file is the
 * entry point for tests and the command line.
 */
import { FIXED_CHANNELS, VIEWER_CHANNELS } from './fake-youtube/data.ts'
import { FakeYoutube, type FakeYoutubeOptions } from './fake-youtube/server.ts'

export { CLIP_SECONDS, FIXED_CHANNELS, VIEWER_CHANNELS, type FakeChannel, type FakeVideo } from './fake-youtube/data.ts'
export { ensureClip } from './fake-youtube/media.ts'
export { FakeYoutube, type FakeYoutubeOptions } from './fake-youtube/server.ts'

export async function startFakeYoutube(opts: FakeYoutubeOptions = {}): Promise<FakeYoutube> {
  return new FakeYoutube(opts).start()
}

if (import.meta.main) {
  const { parseArgs } = await import('node:util')
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '4010' },
      host: { type: 'string', default: '127.0.0.1' },
      seed: { type: 'string', default: '1' },
      'api-key': { type: 'string' },
      quota: { type: 'string' },
      'no-media': { type: 'boolean', default: false },
    },
  })
  const fake = await startFakeYoutube({
    port: Number(values.port),
    hostname: values.host,
    seed: Number(values.seed),
    apiKey: values['api-key'],
    quota: values.quota ? Number(values.quota) : undefined,
    media: !values['no-media'],
  })
  console.log(`fake YouTube listening on ${fake.url} (${fake.channels.size} channels, ${fake.videos.size} videos)`)
  console.log('Start the app with:')
  for (const [k, v] of Object.entries(fake.env)) console.log(`  ${k}=${v}`)
  console.log(`  SPONSORBLOCK_URL=${fake.sponsorBlockUrl}`)
  console.log('Listen mode, podcasts and keeping offline as well (yt-dlp sent here): npx bun scripts/demo.ts instead')
  console.log(`Handles: ${[...FIXED_CHANNELS, ...VIEWER_CHANNELS].map((c) => c.handle).join(' ')}`)
  console.log(`Controls: POST ${fake.url}/_fake/channels/@lofi-garden/uploads?count=3 · GET ${fake.url}/_fake/stats`)
  const stop = async () => {
    await fake.stop()
    process.exit(0)
  }
  process.on('SIGINT', () => void stop())
  process.on('SIGTERM', () => void stop())
}
