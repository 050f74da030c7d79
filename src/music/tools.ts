import { egressProxy } from '../lib/egress-proxy.ts'
import { ProcessFailed, runProcess } from '../lib/process.ts'
import type { AllowList } from '../lib/url-guard.ts'
import { chaptersOf } from './chapters.ts'
import type { Chapter } from './schema.ts'
import { LoudnessReader, measuringGraph, type Loudness } from './replaygain.ts'

/**
 * The yt-dlp and ffmpeg command lines. Both come from Debian (paths from
 * config); yt-dlp's every request goes through the guarding egress proxy.
 */
export interface ToolConfig {
  ytdlp: string
  ffmpeg: string
  allow: AllowList
}

async function ytdlpBase(cfg: ToolConfig): Promise<string[]> {
  const proxy = await egressProxy(cfg.allow)
  return [
    cfg.ytdlp,
    '--ignore-config',
    '--no-playlist',
    '--no-cache-dir',
    '--no-mtime',
    '--socket-timeout',
    '30',
    '--proxy',
    proxy.url,
    // keep HLS/DASH downloads in yt-dlp (through the proxy), never handed to ffmpeg
    '--hls-prefer-native',
  ]
}

/** The most entries a playlist lookup lists (and a playlist job takes). */
export const MAX_PLAYLIST_ENTRIES = 100

/**
 * `yt-dlp -J`: the video's metadata without downloading it. With `playlist`,
 * a playlist link answers with its first 100 entries, unresolved (flat).
 */
export async function videoInfo(
  cfg: ToolConfig,
  url: string,
  signal: AbortSignal,
  opts: { playlist?: boolean } = {},
): Promise<Record<string, unknown>> {
  const playlist = opts.playlist ? ['--yes-playlist', '--flat-playlist', '--playlist-end', String(MAX_PLAYLIST_ENTRIES)] : []
  const result = await runProcess([...(await ytdlpBase(cfg)), ...playlist, '-J', '--skip-download', '--', url], {
    signal,
    collectStdout: true,
    maxStdout: 32 * 1024 * 1024,
  })
  if (result.code !== 0) throw new ProcessFailed('yt-dlp', result)
  return JSON.parse(result.stdout) as Record<string, unknown>
}

/** The uploader or channel name from the metadata, or null. */
export function groupingOf(info: Record<string, unknown>): string | null {
  for (const key of ['uploader', 'channel', 'artist', 'creator']) {
    const value = info[key]
    if (typeof value === 'string' && value.trim()) return value.trim()
  }
  return null
}

const PROGRESS_MARK = '[progress]'

/**
 * Downloads the best audio (or best overall when there is no audio-only
 * format) into `dir` as `source.<ext>`; returns its path and the chapters
 * yt-dlp knows of (from the same call).
 * `onProgress` gets 0-1 from yt-dlp's progress template.
 */
export async function downloadAudio(
  cfg: ToolConfig,
  url: string,
  dir: string,
  signal: AbortSignal,
  onProgress: (fraction: number) => void,
): Promise<{ path: string; chapters: Chapter[] }> {
  let path = ''
  let chapters: Chapter[] = []
  const result = await runProcess(
    [
      ...(await ytdlpBase(cfg)),
      '-f',
      'bestaudio/best',
      '-o',
      `${dir}/source.%(ext)s`,
      '--newline',
      '--progress',
      '--progress-template',
      `download:${PROGRESS_MARK} %(progress.downloaded_bytes)s %(progress.total_bytes)s %(progress.total_bytes_estimate)s`,
      '--print',
      'after_move:filepath',
      '--print',
      'after_move:%(.{chapters,duration})j',
      '--no-simulate',
      '--',
      url,
    ],
    {
      signal,
      onLine(line) {
        if (line.startsWith(PROGRESS_MARK)) {
          const [done, total, estimate] = line.slice(PROGRESS_MARK.length).trim().split(' ').map(Number)
          const whole = total! > 0 ? total! : estimate! > 0 ? estimate! : 0
          if (whole > 0 && done! >= 0) onProgress(Math.min(1, done! / whole))
        } else if (line.startsWith('/')) path = line.trim()
        else if (line.startsWith('{')) {
          try {
            chapters = chaptersOf(JSON.parse(line) as Record<string, unknown>)
          } catch {
            // no chapters then
          }
        }
      },
    },
  )
  if (result.code !== 0) throw new ProcessFailed('yt-dlp', result)
  if (!path.startsWith(`${dir}/`)) throw new Error('yt-dlp did not report the downloaded file')
  return { path, chapters }
}

/** Part of the source to convert, in seconds; `remove` lists spans cut out of it. */
export interface ConvertRange {
  start?: number
  end?: number
  remove?: [number, number][]
}

/**
 * Converts the first audio stream to MP3 (libmp3lame VBR -q:a 0), without
 * video or the source's tags, measuring its loudness in the same pass
 * (replaygain.ts). `onProgress` gets 0-1 from `-progress pipe:1` against the
 * duration ffmpeg prints on stderr (or the range's length).
 */
export async function convertToMp3(
  cfg: ToolConfig,
  input: string,
  output: string,
  signal: AbortSignal,
  onProgress: (fraction: number) => void,
  range: ConvertRange = {},
): Promise<Loudness | null> {
  const seek = range.start ? ['-ss', range.start.toFixed(3)] : []
  const length = range.end !== undefined ? range.end - (range.start ?? 0) : undefined
  let durationUs = length !== undefined ? length * 1e6 : 0
  const chain = range.remove?.length ? [removeSpans(range.remove)] : []
  const loudness = new LoudnessReader()
  const result = await runProcess(
    [
      cfg.ffmpeg,
      '-hide_banner',
      '-nostdin',
      '-y',
      ...seek,
      ...(length !== undefined ? ['-t', length.toFixed(3)] : []),
      '-i',
      input,
      '-filter_complex',
      measuringGraph('0:a:0', chain),
      '-map',
      '[out]',
      '-vn',
      '-sn',
      '-dn',
      '-map_metadata',
      '-1',
      '-map_chapters',
      '-1',
      '-c:a',
      'libmp3lame',
      '-q:a',
      '0',
      '-f',
      'mp3',
      '-progress',
      'pipe:1',
      '-nostats',
      output,
    ],
    {
      signal,
      // the input's duration comes first on stderr, before any progress block
      onStderrLine(line) {
        loudness.line(line)
        const m = /Duration: (\d+):(\d\d):(\d\d(?:\.\d+)?)/.exec(line)
        if (m && !durationUs) durationUs = ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1e6
      },
      onLine(line) {
        const m = /^out_time_(?:us|ms)=(\d+)/.exec(line)
        if (m && durationUs > 0) onProgress(Math.min(1, Number(m[1]) / durationUs))
        else if (line === 'progress=end') onProgress(1)
      },
    },
  )
  if (result.code !== 0) throw new ProcessFailed('ffmpeg', result)
  return loudness.result()
}

/** An `aselect` dropping the given spans (seconds), timestamps made continuous again. */
export function removeSpans(spans: [number, number][]): string {
  const between = spans.map(([a, b]) => `between(t,${a.toFixed(3)},${b.toFixed(3)})`).join('+')
  return `aselect='not(${between})',asetpts=N/SR/TB`
}
