import { accessSync, constants } from 'node:fs'
import { createRequire } from 'node:module'
import { classifyFfmpeg, ToolFailure } from './failure.ts'
import { runTool } from './run.ts'

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

/**
 * Converts the first audio stream to MP3 (libmp3lame VBR -q:a 0), without
 * video or the source's tags. `onProgress` gets 0-1 from `-progress pipe:1`
 * against the duration ffmpeg prints on stderr.
 */
export async function convertToMp3(
  ffmpeg: Ffmpeg | null,
  input: string,
  output: string,
  signal: AbortSignal,
  onProgress: (fraction: number) => void,
): Promise<void> {
  if (!ffmpeg) throw new ToolFailure('tool_missing', FFMPEG_MISSING)
  let durationUs = 0
  await runTool(
    'ffmpeg',
    [
      ffmpeg.path,
      '-hide_banner',
      '-nostdin',
      '-y',
      '-i',
      input,
      '-map',
      '0:a:0',
      '-vn',
      '-sn',
      '-dn',
      '-map_metadata',
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
      classify: classifyFfmpeg,
      // the input's duration comes first on stderr, before any progress block
      onStderrLine(line) {
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
}
