import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { ToolFailure } from '../../tools/failure.ts'
import { runYtdlp, type YtdlpConfig } from '../../tools/ytdlp.ts'

/**
 * A kept video's yt-dlp call (docs/decisions/281): the best video at most `height` high with
 * the best audio, MP4 (H.264/AAC in MP4, merged) where the source allows, else WebM or MKV,
 * with chapters and the thumbnail embedded and the thumbnail also written as JPEG (the
 * episode's `-thumb.jpg`). It writes into `dir` under a fixed name, so yt-dlp's `.part` file
 * from a killed run is continued by the next one.
 */
export const videoFormat = (height: number) => {
  const h = `[height<=?${height}]`
  // only HTTP(S) and HLS over HTTP, as every other call (never a helper program the proxy did not check)
  return [
    `bv*${h}[protocol^=http]+ba[protocol^=http]`,
    `b${h}[protocol^=http]`,
    `bv*${h}[protocol^=m3u8]+ba[protocol^=m3u8]`,
    `b${h}[protocol^=m3u8]`,
  ].join('/')
}

const META = '[meta]'
const SIZE = '[size]'

export function videoArgs(url: string, dir: string, height: number, ffmpegPath: string | null): string[] {
  return [
    '-f',
    videoFormat(height),
    // the largest height up to the ask, then MP4 video and M4A audio before other containers
    '-S',
    `res:${height},ext:mp4:m4a`,
    '--merge-output-format',
    'mp4/mkv',
    '--embed-chapters',
    '--embed-thumbnail',
    '--write-thumbnail',
    '--convert-thumbnails',
    'jpg',
    ...(ffmpegPath ? ['--ffmpeg-location', ffmpegPath] : []),
    '--continue',
    '-o',
    `${dir}/video.%(ext)s`,
    '--newline',
    '--progress',
    '--print',
    `before_dl:${SIZE} %(filesize,filesize_approx)s`,
    '--print',
    'after_move:filepath',
    '--print',
    `after_move:${META}%(.{height,ext,duration})j`,
    '--no-simulate',
    '--',
    url,
  ]
}

export interface FetchedVideo {
  path: string
  height: number | null
  ext: string
  thumbnail: string | null
}

/** Runs the download; the file yt-dlp made and its height. Over `cfg.maxFilesize` → ToolFailure `too_large`. */
export async function downloadVideo(cfg: YtdlpConfig, url: string, dir: string, height: number, ffmpegPath: string | null, signal: AbortSignal): Promise<FetchedVideo> {
  let path = ''
  let meta: { height?: number; ext?: string } = {}
  let skipped = ''
  let size = 0
  await runYtdlp(cfg, videoArgs(url, dir, height, ffmpegPath), {
    signal,
    onLine(line) {
      if (line.startsWith(SIZE)) size = Number(line.slice(SIZE.length)) || 0
      else if (line.startsWith(META)) {
        try {
          meta = JSON.parse(line.slice(META.length))
        } catch {}
      } else if (line.startsWith('/')) path = line.trim()
      else if (/larger than max-filesize/.test(line)) skipped = line.trim()
    },
  })
  if (skipped || !path) throw new ToolFailure('too_large', skipped || `no file: ${size || 'unknown'} bytes, over --max-filesize ${cfg.maxFilesize}?`)
  if (!path.startsWith(`${dir}/`)) throw new ToolFailure('internal', 'yt-dlp did not report the downloaded file')
  const names = await readdir(dir).catch(() => [] as string[])
  const thumb = names.find((n) => n.startsWith('video.') && n.endsWith('.jpg'))
  return { path, height: typeof meta.height === 'number' ? meta.height : null, ext: (meta.ext ?? path.split('.').pop() ?? 'mp4').toLowerCase(), thumbnail: thumb ? join(dir, thumb) : null }
}

const TYPES: Record<string, string> = { mp4: 'video/mp4', m4v: 'video/mp4', webm: 'video/webm', mkv: 'video/x-matroska' }
export const videoType = (ext: string) => TYPES[ext] ?? 'video/x-matroska'
