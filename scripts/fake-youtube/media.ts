import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { CLIP_SECONDS } from './data.ts'
import type { FakeYoutube } from './server.ts'

// The WebM clip every fake video plays; its video alone and its Opus audio alone (the
// formats of the watch page's DASH manifest: watch.ts) and a JPEG still (the watch
// page's thumbnail), with HTTP ranges.

export type MediaKind = 'webm' | 'video.webm' | 'weba' | 'jpg'

export function media(fake: FakeYoutube, videoId: string, req: Request, kind: MediaKind = 'webm'): Response {
  const path = { webm: fake.clip, 'video.webm': fake.videoOnly, weba: fake.audio, jpg: fake.still }[kind]
  if (!path || !fake.videos.has(videoId)) return new Response('Not Found', { status: 404 })
  const file = Bun.file(path)
  const size = file.size
  const headers: Record<string, string> = {
    'content-type': { webm: 'video/webm', 'video.webm': 'video/webm', weba: 'audio/webm', jpg: 'image/jpeg' }[kind],
    'accept-ranges': 'bytes',
    'access-control-allow-origin': '*',
    'cache-control': 'public, max-age=3600',
  }
  const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.get('range') ?? '')
  if (range && (range[1] || range[2])) {
    let start = range[1] ? Number(range[1]) : size - Number(range[2])
    let end = range[1] && range[2] ? Number(range[2]) : size - 1
    start = Math.max(0, start)
    end = Math.min(end, size - 1)
    if (start > end) return new Response(null, { status: 416, headers: { 'content-range': `bytes */${size}` } })
    return new Response(file.slice(start, end + 1), {
      status: 206,
      headers: { ...headers, 'content-range': `bytes ${start}-${end}/${size}`, 'content-length': String(end - start + 1) },
    })
  }
  return new Response(file, { headers: { ...headers, 'content-length': String(size) } })
}

/** Makes (once, then cached) the VP8/Opus clip every fake video plays. */
export async function ensureClip(opts: { cacheDir?: string; ffmpegPath?: string } = {}): Promise<string> {
  const dir = opts.cacheDir ?? join(tmpdir(), 'tunefeed-fake-youtube')
  const file = join(dir, `clip-v1-${CLIP_SECONDS}s.webm`)
  await cached(file, opts.ffmpegPath, [
    '-f', 'lavfi', '-i', `testsrc2=size=320x180:rate=15:duration=${CLIP_SECONDS}`,
    '-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${CLIP_SECONDS}`,
    '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '150k',
    '-c:a', 'libopus', '-b:a', '32k',
    '-shortest', '-f', 'webm',
  ])
  return file
}

/** The clip's video alone and audio alone (copied, WebM) and a JPEG still of it, made once beside it. */
export async function ensureClipParts(clip: string, opts: { ffmpegPath?: string } = {}): Promise<{ videoOnly: string; audio: string; still: string }> {
  const base = clip.replace(/\.webm$/, '')
  const parts = { videoOnly: `${base}-video.webm`, audio: `${base}-audio.weba`, still: `${base}-still.jpg` }
  await Promise.all([
    cached(parts.videoOnly, opts.ffmpegPath, ['-i', clip, '-an', '-c:v', 'copy', '-f', 'webm']),
    cached(parts.audio, opts.ffmpegPath, ['-i', clip, '-vn', '-c:a', 'copy', '-f', 'webm']),
    cached(parts.still, opts.ffmpegPath, ['-ss', '1', '-i', clip, '-frames:v', '1', '-c:v', 'mjpeg', '-f', 'image2']),
  ])
  return parts
}

/** Runs ffmpeg with `args` into `file` unless it is there (written aside, then renamed: a concurrent process sees the whole file or none). */
async function cached(file: string, ffmpegPath: string | undefined, args: string[]) {
  if (existsSync(file)) return
  mkdirSync(dirname(file), { recursive: true })
  const partial = `${file}.${process.pid}.${Date.now()}.part`
  const proc = Bun.spawn([ffmpegPath ?? '/usr/bin/ffmpeg', '-hide_banner', '-loglevel', 'error', ...args, '-y', partial], { stdout: 'ignore', stderr: 'pipe' })
  const code = await proc.exited
  if (code !== 0) {
    rmSync(partial, { force: true })
    throw new Error(`fake youtube: ffmpeg failed (${code}): ${await new Response(proc.stderr).text()}`)
  }
  renameSync(partial, file)
}
