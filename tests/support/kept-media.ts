import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ffmpeg } from './media.ts'

/**
 * Pages yt-dlp's generic extractor reads as one video at several heights (HTML5 `<source res>`),
 * with real small MP4s made by ffmpeg (H.264 + AAC, 2 s): yt-dlp's own format selection then
 * honours the height a kept video asks for. `/v/<id>.html` is the page of any video id;
 * `/slow/<height>.mp4` trickles at `slowRate` bytes per second (a fetch to kill mid-way).
 */
export interface KeptMedia {
  url: string
  heights: number[]
  sizes: Record<number, number>
  hits: string[]
  slowRate: number
  /** Pages whose sources are the slow ones. */
  slowIds: Set<string>
  stop(): Promise<void>
}

export async function startKeptMedia(heights = [360, 480], seconds = 2): Promise<KeptMedia> {
  const dir = mkdtempSync(join(tmpdir(), 'tunefeed-kept-media-'))
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  await Promise.all(
    heights.map((h) =>
      ffmpeg([
        '-f', 'lavfi', '-i', `testsrc2=size=${Math.round((h * 16) / 9 / 2) * 2}x${h}:rate=15:duration=${seconds}`,
        '-f', 'lavfi', '-i', `sine=frequency=330:duration=${seconds}`,
        // noise makes the larger height larger on disk (the quota tests rely on it)
        '-vf', `noise=alls=${h > 400 ? 60 : 20}:allf=t`,
        '-c:v', 'libx264', '-preset', 'ultrafast', '-b:v', h > 400 ? '6M' : '1500k', '-c:a', 'aac', '-shortest', '-movflags', '+faststart',
        join(dir, `${h}.mp4`),
      ]),
    ),
  )
  await ffmpeg(['-f', 'lavfi', '-i', 'color=c=green:s=320x180', '-frames:v', '1', join(dir, 'thumb.jpg')])
  const sizes = Object.fromEntries(heights.map((h) => [h, Bun.file(join(dir, `${h}.mp4`)).size]))
  const hits: string[] = []
  const state = { slowRate: 50 * 1024 }
  const slowIds = new Set<string>()
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url)
      hits.push(url.pathname)
      const page = /^\/v\/([\w-]{11})\.html$/.exec(url.pathname)
      if (page) {
        const slow = slowIds.has(page[1]!)
        const sources = heights.map((h) => `<source src="/${slow ? 'slow' : 'files'}/${h}.mp4" type="video/mp4" res="${h}" label="${h}p">`).join('')
        return new Response(
          `<!doctype html><html><head><title>Video ${page[1]}</title><meta property="og:image" content="${url.origin}/thumb.jpg"></head><body><video controls poster="${url.origin}/thumb.jpg">${sources}</video></body></html>`,
          { headers: { 'content-type': 'text/html; charset=utf-8' } },
        )
      }
      if (url.pathname === '/thumb.jpg') return new Response(Bun.file(join(dir, 'thumb.jpg')), { headers: { 'content-type': 'image/jpeg' } })
      const file = /^\/(files|slow)\/(\d+)\.mp4$/.exec(url.pathname)
      if (file && heights.includes(Number(file[2]))) {
        const data = await Bun.file(join(dir, `${file[2]}.mp4`)).bytes()
        const start = Number(/^bytes=(\d+)-/.exec(req.headers.get('range') ?? '')?.[1] ?? 0)
        const body = data.subarray(start)
        const headers = { 'content-type': 'video/mp4', 'accept-ranges': 'bytes', 'content-length': String(body.length), ...(start ? { 'content-range': `bytes ${start}-${data.length - 1}/${data.length}` } : {}) }
        if (file[1] === 'files') return new Response(body, { status: start ? 206 : 200, headers })
        const stream = new ReadableStream({
          async pull(c) {
            let offset = 0
            while (offset < body.length) {
              const step = Math.max(1024, Math.floor(state.slowRate / 10))
              c.enqueue(body.subarray(offset, offset + step))
              offset += step
              await Bun.sleep(100)
            }
            c.close()
          },
        })
        return new Response(stream, { status: start ? 206 : 200, headers })
      }
      return new Response('not found', { status: 404 })
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    heights,
    sizes,
    hits,
    slowIds,
    get slowRate() {
      return state.slowRate
    },
    set slowRate(v: number) {
      state.slowRate = v
    },
    async stop() {
      await server.stop(true)
    },
  }
}

/** A media server stand-in (Jellyfin or Plex) recording each call with its headers. */
export function startMediaServerStandIn() {
  const calls: { method: string; path: string; headers: Record<string, string>; at: number }[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const url = new URL(req.url)
      calls.push({ method: req.method, path: `${url.pathname}${url.search}`, headers: Object.fromEntries(req.headers), at: Date.now() })
      return new Response(null, { status: 204 })
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, calls, stop: () => server.stop(true) }
}
