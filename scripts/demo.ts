#!/usr/bin/env bun
/**
 * The offline demo in one command: `npx bun scripts/demo.ts` starts the fake YouTube
 * (scripts/fake-youtube.ts: the Data API, feeds, channel and watch pages, media, a
 * SponsorBlock) and the app as `npm start` does, in this process, with the settings that
 * send everything YouTube-bound to the fake: yt-dlp is Debian's, run by the app as in
 * production, through a two-line script that moves www.youtube.com links onto the fake
 * (scripts/fake-youtube/ytdlp.ts). Nothing leaves 127.0.0.1.
 *
 *   npx bun scripts/demo.ts [--youtube-port 4010] [--data-dir ./data-demo] [--seed 1]
 *
 * The app's own PORT (default 3000) and HOST (default here 127.0.0.1) apply. Its data
 * (PGlite, mail, audio, kept videos) goes to the demo's folder, never to DATA_DIR: the
 * settings that would reach a real service or database are not passed on (see DROPPED).
 */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { FIXED_CHANNELS, startFakeYoutube } from './fake-youtube.ts'
import { writeDemoYtdlp } from './fake-youtube/ytdlp.ts'

/** Settings of the environment that would point the demo at real services, storage or a database. */
const DROPPED =
  /^(DATA_DIR|DATABASE_URL|QUEUE_URL|SMTP_URL|PUBLIC_URL|APP_SECRET|STORAGE|S3_\w+|KEEP_DIR|OIDC_\w+|SIGNUP|JELLYFIN_\w+|PLEX_\w+|YTDLP_\w+|YOUTUBE_\w+|SPONSORBLOCK_URL|DEARROW_\w*|WEBSUB_\w+|LYRICS_URL|MUSICBRAINZ_URL|COVERART_URL|FETCH_ALLOW_HOSTS|DENO_\w+)$/

const { values } = parseArgs({
  options: {
    'youtube-port': { type: 'string', default: '4010' },
    'data-dir': { type: 'string', default: './data-demo' },
    seed: { type: 'string', default: '1' },
  },
})
const dataDir = resolve(values['data-dir'])
const fake = await startFakeYoutube({ port: Number(values['youtube-port']), hostname: '127.0.0.1', seed: Number(values.seed) })
const ytdlp = writeDemoYtdlp(resolve(dataDir, 'demo-bin'), fake.url)
const canaryVideo = fake.channel('@lofi-garden').uploads[0]

for (const key of Object.keys(process.env)) if (DROPPED.test(key)) delete process.env[key]
const env: Record<string, string> = {
  DATA_DIR: dataDir,
  HOST: process.env.HOST || '127.0.0.1',
  ...fake.env,
  SPONSORBLOCK_URL: fake.sponsorBlockUrl,
  YTDLP_PATH: ytdlp,
  YTDLP_CANARY_URL: `https://www.youtube.com/watch?v=${canaryVideo}`,
  // YouTube's names pass the URL guard unresolved (there is no DNS offline; yt-dlp is sent to
  // the fake anyway), and the fake on 127.0.0.1 passes the egress proxy
  FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com,youtube.com,m.youtube.com,youtu.be',
  // the app still paces every YouTube extraction; the fake needs no 8 s between two
  YTDLP_SLEEP_SECONDS: '1',
  LYRICS_URL: 'off',
}
Object.assign(process.env, env)

console.log(`[demo] fake YouTube at ${fake.url} (${fake.channels.size} channels, ${fake.videos.size} videos, SponsorBlock at ${fake.sponsorBlockUrl})`)
console.log(`[demo] data in ${dataDir}; yt-dlp through ${ytdlp}`)
console.log(`[demo] channels to follow: ${FIXED_CHANNELS.filter((c) => c.uploads > 0).map((c) => c.handle).join(' ')}`)
console.log(`[demo] new uploads: curl -X POST '${fake.url}/_fake/channels/@tiny-kitchen/uploads?count=3'`)
process.on('exit', () => void fake.stop())
await import('./start.ts')
