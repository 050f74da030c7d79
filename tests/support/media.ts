import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Media made by ffmpeg at test time, and a local HTTP server on loopback
 * that yt-dlp's generic extractor downloads from: direct audio/video files,
 * a page with JSON-LD VideoObject metadata and a video, cover pages
 * (og:image, twitter:image, SoundCloud-style), redirects and a throttled
 * endpoint for slow jobs. Every request is logged in `hits`.
 */
export interface TestMedia {
  dir: string
  mp3: string
  wav: string
  mp4: string
  jpg: string
  png: string
  /** 12 s AAC with three embedded chapters ("Intro" 0-4, "Song Two" 4-8, "Finale" 8-12). */
  chapters: string
}

/** The chapters of `TestMedia.chapters` (and of the `/album.html` page). */
export const TEST_CHAPTERS = [
  { title: 'Intro', start: 0, end: 4 },
  { title: 'Song Two', start: 4, end: 8 },
  { title: 'Finale', start: 8, end: 12 },
]

/** Writes an ffmetadata file naming `chapters` (seconds) for ffmpeg's `-i meta -map_chapters 1`. */
export function ffmetadata(chapters: { title: string; start: number; end: number }[]): string {
  const lines = [';FFMETADATA1']
  for (const c of chapters) lines.push('[CHAPTER]', 'TIMEBASE=1/1000', `START=${Math.round(c.start * 1000)}`, `END=${Math.round(c.end * 1000)}`, `title=${c.title}`)
  return `${lines.join('\n')}\n`
}

/** A source of `seconds` with a different tone per chapter and the chapters embedded. */
export async function makeChaptered(path: string, chapters: { title: string; start: number; end: number }[], codec: 'aac' | 'mp3' = 'aac') {
  const meta = `${path}.ffmeta`
  await Bun.write(meta, ffmetadata(chapters))
  const seconds = chapters.at(-1)!.end
  await ffmpeg([
    '-f', 'lavfi', '-i', `sine=frequency=300:duration=${seconds}`,
    '-f', 'lavfi', '-i', `anoisesrc=d=${seconds}:a=0.05`,
    '-i', meta, '-map_chapters', '2',
    '-filter_complex', '[0][1]amix=inputs=2', '-ac', '2',
    ...(codec === 'aac' ? ['-c:a', 'aac', '-b:a', '128k', '-f', 'mp4'] : ['-c:a', 'libmp3lame', '-b:a', '192k']),
    path,
  ])
}

const FFMPEG = process.env.FFMPEG_PATH || '/usr/bin/ffmpeg'

export async function ffmpeg(args: string[]) {
  const proc = Bun.spawn([FFMPEG, '-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...args], { stdout: 'ignore', stderr: 'pipe' })
  const [code, err] = await Promise.all([proc.exited, new Response(proc.stderr).text()])
  if (code !== 0) throw new Error(`ffmpeg ${args.join(' ')} failed: ${err}`)
}

let generated: Promise<TestMedia> | undefined

/** Short sources (3 s), made once per test process. */
export function testMedia(): Promise<TestMedia> {
  generated ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tunefeed-media-'))
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
    const m: TestMedia = {
      dir,
      mp3: join(dir, 'audio.mp3'),
      wav: join(dir, 'audio.wav'),
      mp4: join(dir, 'video.mp4'),
      jpg: join(dir, 'cover.jpg'),
      png: join(dir, 'cover.png'),
      chapters: join(dir, 'chapters.m4a'),
    }
    const tone = (freq: number, seconds = 3) => ['-f', 'lavfi', '-i', `sine=frequency=${freq}:duration=${seconds}`]
    await Promise.all([
      ffmpeg([...tone(440), '-c:a', 'libmp3lame', '-q:a', '5', m.mp3]),
      ffmpeg([...tone(523), '-ac', '2', '-c:a', 'pcm_s16le', m.wav]),
      ffmpeg([
        '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10:duration=3',
        ...tone(330),
        '-c:v', 'mpeg4', '-c:a', 'aac', '-shortest', m.mp4,
      ]),
      ffmpeg(['-f', 'lavfi', '-i', 'color=c=red:s=64x64', '-frames:v', '1', m.jpg]),
      ffmpeg(['-f', 'lavfi', '-i', 'color=c=blue:s=48x48', '-frames:v', '1', m.png]),
      makeChaptered(m.chapters, TEST_CHAPTERS),
    ])
    return m
  })()
  return generated
}

/** A longer source (for benchmarks and slow jobs). */
export async function makeTone(path: string, seconds: number, codec: 'mp3' | 'wav' = 'mp3') {
  await ffmpeg([
    '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`,
    '-f', 'lavfi', '-i', `anoisesrc=d=${seconds}:a=0.05`,
    '-filter_complex', 'amix=inputs=2', '-ac', '2',
    ...(codec === 'mp3' ? ['-c:a', 'libmp3lame', '-b:a', '192k'] : ['-c:a', 'pcm_s16le']),
    path,
  ])
}

export interface MediaServer {
  url: string
  hits: string[]
  /** Serve an extra file at `/files/<name>` and, throttled, at `slowUrl(name)`. */
  addFile(name: string, path: string): void
  slowUrl(name: string): string
  /** Bytes per second for `slowUrl(...)`; change it while a download runs. */
  slowRate: number
  stop(): Promise<void>
}

const pageWithJsonLd = (base: string) => `<!doctype html>
<html><head><title>Local page</title>
<script type="application/ld+json">${JSON.stringify({
  '@context': 'https://schema.org',
  '@type': 'VideoObject',
  name: 'Test Video',
  description: 'A short generated video.',
  uploadDate: '2024-01-02',
  duration: 'PT3S',
  thumbnailUrl: `${base}/cover.jpg`,
  contentUrl: `${base}/video.mp4`,
  author: { '@type': 'Person', name: 'Test Uploader' },
})}</script>
</head><body>
<video id="player" controls></video>
<script>document.getElementById('player').src = '/video.mp4'</script>
</body></html>`

/** A page whose JSON-LD `name` is `title` (upload-title patterns), optionally with chapters (`hasPart` clips). */
const videoPage = (base: string, o: { title: string; media: string; duration: number; chapters?: typeof TEST_CHAPTERS }) => `<!doctype html>
<html><head><title>${o.title.replace(/</g, '&lt;')}</title>
<script type="application/ld+json">${JSON.stringify({
  '@context': 'https://schema.org',
  '@type': 'VideoObject',
  name: o.title,
  uploadDate: '2024-01-02',
  duration: `PT${o.duration}S`,
  thumbnailUrl: `${base}/cover.jpg`,
  contentUrl: `${base}${o.media}`,
  author: { '@type': 'Person', name: 'Test Uploader' },
  hasPart: o.chapters?.map((c) => ({ '@type': 'Clip', name: c.title, startOffset: c.start, endOffset: c.end })),
}).replace(/</g, '\\u003c')}</script>
</head><body><video controls></video></body></html>`

/**
 * A talk with chapters and subtitles (podcast chapters and transcripts): `/talk.html?media=<path>`
 * has JSON-LD chapters (TALK_CHAPTERS) whose `contentUrl` is `/talk-player.html`, a player with
 * the media and an English subtitle track (TALK_VTT): yt-dlp's generic extractor takes the
 * chapters from the first page and the formats and subtitles from the second.
 */
export const TALK_CHAPTERS = [
  { title: 'Opening', start: 0, end: 4 },
  { title: 'A word from our sponsor', start: 4, end: 8 },
  { title: 'Middle \u0007part', start: 8, end: 14 },
  { title: 'End & <credits>', start: 14, end: 20 },
]
export const TALK_VTT = `WEBVTT

00:00:01.000 --> 00:00:02.500 align:start
Hello &amp; <b>welcome</b>\u0007

00:00:02.000 --> 00:00:04.000
Overlaps the cut

00:00:05.000 --> 00:00:07.000
Inside the sponsor read

00:00:08.500 --> 00:00:10.000
Starts in the cut

00:00:15.000 --> 00:00:16.000
<script>alert(1)</script>Near the <00:00:15.500><c>end</c>
`
const talkPage = (base: string, media: string) => `<!doctype html>
<html><head><title>A talk</title>
<script type="application/ld+json">${JSON.stringify({
  '@context': 'https://schema.org',
  '@type': 'VideoObject',
  name: 'A talk',
  uploadDate: '2024-01-02',
  duration: 'PT20S',
  contentUrl: `${base}/talk-player.html?media=${encodeURIComponent(media)}`,
  hasPart: TALK_CHAPTERS.map((c) => ({ '@type': 'Clip', name: c.title, startOffset: c.start, endOffset: c.end })),
}).replace(/</g, '\\u003c')}</script>
</head><body><video controls></video></body></html>`

/** An RSS feed yt-dlp's generic extractor reads as a playlist of its enclosures. */
const playlistFeed = (base: string, items: { title: string; media: string; seconds: number }[]) => `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>
<title>Test Playlist</title><link>${base}/</link><description>Generated</description>
${items
  .map(
    (i) => `<item><title>${i.title}</title><enclosure url="${base}${i.media}" type="audio/mpeg" length="1"/><itunes:duration>${i.seconds}</itunes:duration></item>`,
  )
  .join('\n')}
</channel></rss>`

export const PLAYLIST_ITEMS = [
  { title: 'First Artist - One (Official Audio)', media: '/audio.mp3', seconds: 3 },
  { title: 'Second Artist - Two', media: '/audio.wav', seconds: 3 },
  { title: 'Three | Third Artist', media: '/audio.mp3?3', seconds: 3 },
]

function fileResponse(req: Request, path: string, type: string): Response {
  const file = Bun.file(path)
  const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.get('range') ?? '')
  if (range && range[1]) {
    const start = Number(range[1])
    const end = range[2] ? Number(range[2]) : file.size - 1
    return new Response(file.slice(start, end + 1), {
      status: 206,
      headers: { 'content-type': type, 'content-range': `bytes ${start}-${end}/${file.size}`, 'accept-ranges': 'bytes' },
    })
  }
  return new Response(file, { headers: { 'content-type': type, 'accept-ranges': 'bytes' } })
}

export async function startMediaServer(opts: { hostname?: string } = {}): Promise<MediaServer> {
  const media = await testMedia()
  const files = new Map<string, { path: string; type: string }>([
    ['/audio.mp3', { path: media.mp3, type: 'audio/mpeg' }],
    ['/audio.wav', { path: media.wav, type: 'audio/wav' }],
    ['/video.mp4', { path: media.mp4, type: 'video/mp4' }],
    ['/cover.jpg', { path: media.jpg, type: 'image/jpeg' }],
    ['/cover.png', { path: media.png, type: 'image/png' }],
    ['/chapters.m4a', { path: media.chapters, type: 'audio/mp4' }],
  ])
  const hits: string[] = []
  const state = { slowRate: 64 * 1024 }
  const hostname = opts.hostname ?? '127.0.0.1'
  const html = (body: string) => new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8' } })
  const server = Bun.serve({
    hostname,
    port: 0,
    idleTimeout: 0,
    fetch(req): Response {
      const url = new URL(req.url)
      hits.push(`${url.pathname}${url.search}`)
      const base = url.origin
      const file = files.get(url.pathname)
      if (file) return fileResponse(req, file.path, file.type)
      switch (url.pathname) {
        case '/page.html':
          return html(pageWithJsonLd(base))
        case '/album.html':
          return html(videoPage(base, { title: 'Test Band - Whole Album (Full Album)', media: '/chapters.m4a', duration: 12, chapters: TEST_CHAPTERS }))
        case '/talk.html':
          return html(talkPage(base, url.searchParams.get('media') ?? '/audio.mp3'))
        case '/talk-player.html':
          return html(
            `<html><head><title>A talk</title></head><body><video controls src="${(url.searchParams.get('media') ?? '/audio.mp3').replace(/[<>"&]/g, '')}"><track kind="subtitles" srclang="en" src="/talk.en.vtt"></video></body></html>`,
          )
        case '/talk.en.vtt':
          return new Response(TALK_VTT, { headers: { 'content-type': 'text/vtt; charset=utf-8' } })
        case '/titled.html':
          return html(videoPage(base, { title: url.searchParams.get('title') ?? 'Untitled', media: '/audio.mp3', duration: 3 }))
        case '/playlist.rss':
          return new Response(playlistFeed(base, PLAYLIST_ITEMS), { headers: { 'content-type': 'application/rss+xml' } })
        case '/og.html':
          return html(`<html><head><meta content="/cover.png" property="og:image"><meta name="twitter:image" content="/cover.jpg"></head></html>`)
        case '/twitter.html':
          return html(`<html><head><meta name='twitter:image' content='${base}/cover.jpg'></head></html>`)
        case '/soundcloud.html':
          return html(`<html><head><meta property="og:image" content="https://i1.sndcdn.com/artworks-000123-abcdef-large.jpg"></head></html>`)
        case '/two-audio.html':
          // a plain page with two players: yt-dlp lists them as a playlist of the page's title, "(1)" and "(2)"
          return html(`<html><head><title>Two Songs</title></head><body><audio src="/audio.mp3"></audio><audio src="/audio.wav"></audio></body></html>`)
        case '/one-audio.html':
          return html(`<html><head><title>One Song</title></head><body><audio src="/audio.wav"></audio></body></html>`)
        case '/nocover.html':
          return html('<html><head><title>nothing</title></head><body>no image here</body></html>')
        case '/text.txt':
          return new Response('just text', { headers: { 'content-type': 'text/plain' } })
        case '/redirect':
          return new Response(null, { status: 302, headers: { location: url.searchParams.get('to') ?? '/' } })
      }
      return new Response('not found', { status: 404 })
    },
  })
  // Bun.serve drops Content-Length on streamed bodies; yt-dlp needs it to report progress
  const slow = createServer((req, res) => {
    hits.push(req.url ?? '')
    const name = /^\/slow\/([^/?]+)/.exec(req.url ?? '')?.[1]
    const extra = name && files.get(`/files/${name}`)
    if (!extra) return res.writeHead(404).end('not found')
    const data = readFileSync(extra.path)
    res.writeHead(200, { 'content-type': extra.type, 'content-length': String(data.length) })
    let offset = 0
    const tick = () => {
      if (res.destroyed) return
      if (offset >= data.length) return void res.end()
      const step = Math.max(1024, Math.floor(state.slowRate / 10))
      res.write(data.subarray(offset, offset + step))
      offset += step
      setTimeout(tick, 100)
    }
    tick()
  })
  await new Promise<void>((resolve) => slow.listen(0, hostname, resolve))
  const slowPort = (slow.address() as { port: number }).port
  return {
    url: `http://${hostname}:${server.port}`,
    slowUrl: (name: string) => `http://${hostname}:${slowPort}/slow/${name}`,
    hits,
    addFile(name, path) {
      files.set(`/files/${name}`, { path, type: name.endsWith('.wav') ? 'audio/wav' : 'audio/mpeg' })
    },
    get slowRate() {
      return state.slowRate
    },
    set slowRate(v: number) {
      state.slowRate = v
    },
    async stop() {
      slow.closeAllConnections()
      await Promise.all([server.stop(true), new Promise((resolve) => slow.close(resolve))])
    },
  }
}
