import { accessSync, constants } from 'node:fs'
import { createRequire } from 'node:module'
import { classifyFfmpeg, ToolFailure } from './failure.ts'
import { runTool } from './run.ts'
import { runProcess } from '../lib/process.ts'
import { type Chapter, usableChapters } from './chapters.ts'
import { measureOutput, measuringGraph, startMeasuring, type Loudness } from './loudness.ts'

/**
 * Which ffmpeg runs, in this order (docs/decisions/051-ffmpeg-discovery.md):
 * FFMPEG_PATH as is; `ffmpeg` on PATH; the binary of the optional
 * `ffmpeg-static` package (its install step downloads it, so the package may
 * be there without it: then it counts as absent); the binary carried inside
 * `@ffmpeg-installer/ffmpeg`'s platform package.
 */
export type FfmpegSource = 'config' | 'path' | 'ffmpeg-static' | '@ffmpeg-installer/ffmpeg'

export interface Ffmpeg {
  path: string
  source: FfmpegSource
  /** `5.1.6-0+deb12u1`, from `ffmpeg -version`; null when it did not answer. */
  version: string | null
}

const executable = (path: string | null | undefined): path is string => {
  if (!path) return false
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The path a package's main export names, or null when the package (or its platform part) is absent. */
function packageBinary(name: string, from: string): string | null {
  try {
    const mod = createRequire(from)(name) as string | { path?: string } | null
    const path = typeof mod === 'string' ? mod : mod?.path
    return executable(path) ? path : null
  } catch {
    return null
  }
}

/**
 * The ffmpeg to use, or null when none is found. `searchPath` is PATH (from env.ts); packages are
 * resolved from `packagesFrom` (a file path; tests point it at a folder with their own node_modules).
 */
export async function findFfmpeg(opts: { configured?: string; searchPath?: string; packagesFrom?: string }): Promise<Ffmpeg | null> {
  let found: { path: string; source: FfmpegSource } | null = null
  if (opts.configured) found = { path: opts.configured, source: 'config' }
  else {
    const onPath = Bun.which('ffmpeg', { PATH: opts.searchPath ?? '' })
    if (onPath) found = { path: onPath, source: 'path' }
    else {
      for (const source of ['ffmpeg-static', '@ffmpeg-installer/ffmpeg'] as const) {
        const path = packageBinary(source, opts.packagesFrom ?? import.meta.url)
        if (path) {
          found = { path, source }
          break
        }
      }
    }
  }
  if (!found) return null
  return { ...found, version: await ffmpegVersion(found.path) }
}

export async function ffmpegVersion(path: string): Promise<string | null> {
  try {
    const result = await runTool('ffmpeg', [path, '-hide_banner', '-version'], {
      signal: AbortSignal.timeout(10_000),
      collectStdout: true,
      classify: classifyFfmpeg,
    })
    return /ffmpeg version (\S+)/.exec(result.stdout)?.[1] ?? null
  } catch {
    return null
  }
}

export const FFMPEG_MISSING = 'no ffmpeg: FFMPEG_PATH unset, none on PATH and no ffmpeg package installed'

/** Part of the source to convert, in seconds; `remove` lists spans cut out of it. */
export interface ConvertRange {
  start?: number
  end?: number
  remove?: [number, number][]
}

/**
 * Converts the first audio stream to MP3 (libmp3lame VBR -q:a 0), without
 * video, tags or chapters of the source, measuring its loudness in the same
 * pass (loudness.ts; `measure: false` only for the benchmark's comparison).
 * `onProgress` gets 0-1 from `-progress pipe:1` against the duration ffmpeg
 * prints on stderr (or the range's length).
 */
export async function convertToMp3(
  ffmpeg: Ffmpeg | null,
  input: string,
  output: string,
  signal: AbortSignal,
  onProgress: (fraction: number) => void,
  range: ConvertRange = {},
  measure = true,
): Promise<Loudness | null> {
  if (!ffmpeg) throw new ToolFailure('tool_missing', FFMPEG_MISSING)
  const length = range.end !== undefined ? range.end - (range.start ?? 0) : undefined
  let durationUs = length !== undefined ? length * 1e6 : 0
  const measuring = measure ? await startMeasuring() : null
  let loudness: Loudness | null = null
  try {
    await runTool('ffmpeg', mp3Args(ffmpeg.path, input, output, range, measuring?.path), {
      signal,
      classify: classifyFfmpeg,
      // the input's duration comes first on stderr, before any progress block
      onStderrLine(line) {
        const seconds = durationOf(line)
        if (seconds !== null && !durationUs) durationUs = seconds * 1e6
      },
      onLine(line) {
        const m = /^out_time_(?:us|ms)=(\d+)/.exec(line)
        if (m && durationUs > 0) onProgress(Math.min(1, Number(m[1]) / durationUs))
        else if (line === 'progress=end') onProgress(1)
      },
    })
  } finally {
    // after ffmpeg, however it ended: the worker is told the end and the FIFO removed
    loudness = (await measuring?.finish()) ?? null
  }
  return loudness
}

/**
 * convertToMp3's command line (the benchmark runs the same one by hand):
 * input seeking for a range, MP3 VBR, progress on stdout and, given
 * `measureTo` (a FIFO, loudness.ts), the measuring branch written there.
 */
export function mp3Args(ffmpegPath: string, input: string, output: string, range: ConvertRange = {}, measureTo?: string): string[] {
  const seek = range.start ? ['-ss', range.start.toFixed(3)] : []
  const length = range.end !== undefined ? range.end - (range.start ?? 0) : undefined
  const chain = range.remove?.length ? [removeSpans(range.remove)] : []
  const graph = measureTo
    ? measuringGraph('0:a:0', chain)
    : chain.length
      ? `[0:a:0]${chain.join(',')}[out]`
      : null
  return [
    ffmpegPath,
    '-hide_banner',
    '-nostdin',
    '-y',
    ...seek,
    ...(length !== undefined ? ['-t', length.toFixed(3)] : []),
    '-i',
    input,
    ...(graph ? ['-filter_complex', graph, '-map', '[out]'] : ['-map', '0:a:0']),
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
    ...(measureTo ? measureOutput(measureTo) : []),
  ]
}

/** An `aselect` dropping the given spans (seconds), timestamps made continuous again. */
export function removeSpans(spans: [number, number][]): string {
  const between = spans.map(([a, b]) => `between(t,${a.toFixed(3)},${b.toFixed(3)})`).join('+')
  return `aselect='not(${between})',asetpts=N/SR/TB`
}

/** The seconds of the `Duration: 00:03:12.50` line ffmpeg prints about its input, else null. */
function durationOf(line: string): number | null {
  const m = /Duration: (\d+):(\d\d):(\d\d(?:\.\d+)?)/.exec(line)
  return m ? (Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3]) : null
}

/**
 * What ffmpeg's description of a media file says (`Duration: 00:03:12.50`, then
 * `Chapter #0:1: start 4.000000, end 8.000000` and its title), without converting
 * anything: its duration in seconds (null when it gives none) and its chapters.
 */
export async function probeMedia(ffmpeg: Ffmpeg | null, path: string, signal: AbortSignal): Promise<{ duration: number | null; chapters: Chapter[] }> {
  if (!ffmpeg) throw new ToolFailure('tool_missing', FFMPEG_MISSING)
  const chapters: Chapter[] = []
  let duration: number | null = null
  let current: Chapter | null = null
  // no output file: ffmpeg describes the input and exits 1, which is expected here
  await runProcess([ffmpeg.path, '-hide_banner', '-nostdin', '-i', path], {
    signal,
    onStderrLine(line) {
      if (duration === null) duration = durationOf(line)
      const c = /^\s*Chapter #\d+:\d+: start (-?[\d.]+), end (-?[\d.]+)/.exec(line)
      if (c) {
        current = { title: `Chapter ${chapters.length + 1}`, start: Number(c[1]), end: Number(c[2]) }
        chapters.push(current)
        return
      }
      const t = /^\s*title\s*:\s?(.*)$/.exec(line)
      if (t && current && t[1]!.trim()) current.title = t[1]!.trim()
      else if (/^\s*(Stream|Input) #/.test(line)) current = null
    },
  })
  return { duration, chapters: usableChapters(chapters) }
}

/** The chapters embedded in a media file (probeMedia's). */
export async function fileChapters(ffmpeg: Ffmpeg | null, path: string, signal: AbortSignal): Promise<Chapter[]> {
  return (await probeMedia(ffmpeg, path, signal)).chapters
}

/**
 * Centre-crops an image to a square JPEG (`output`); false when ffmpeg
 * cannot read it (the caller keeps the original).
 */
export async function cropSquare(ffmpeg: Ffmpeg | null, input: string, output: string, signal: AbortSignal): Promise<boolean> {
  if (!ffmpeg) return false
  const result = await runProcess(
    [ffmpeg.path, '-hide_banner', '-nostdin', '-y', '-i', input, '-vf', "crop='min(iw,ih)':'min(iw,ih)'", '-frames:v', '1', '-q:v', '2', '-f', 'image2', '-c:v', 'mjpeg', output],
    { signal },
  )
  return result.code === 0
}
