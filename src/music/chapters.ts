import type { Chapter } from './schema.ts'
import { runProcess } from '../lib/process.ts'

type Info = Record<string, unknown>
const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null)
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/** yt-dlp's chapter list as `{title, start, end}` (seconds); entries without times are dropped. */
export function chaptersOf(info: Info): Chapter[] {
  const raw = Array.isArray(info.chapters) ? (info.chapters as Info[]) : []
  const duration = num(info.duration)
  return raw
    .map((c, i) => ({
      title: str(c.title) ?? `Chapter ${i + 1}`,
      start: num(c.start_time) ?? 0,
      end: num(c.end_time) ?? (i === raw.length - 1 ? duration : null) ?? 0,
    }))
    .filter((c) => c.end > c.start)
}


/**
 * The chapters embedded in a media file, read from ffmpeg's description of
 * its input (`Chapter #0:1: start 4.000000, end 8.000000` then its title),
 * without converting anything.
 */
export async function fileChapters(ffmpeg: string, path: string, signal: AbortSignal): Promise<Chapter[]> {
  const chapters: Chapter[] = []
  let current: Chapter | null = null
  // no output file: ffmpeg describes the input and exits 1, which is expected here
  await runProcess([ffmpeg, '-hide_banner', '-nostdin', '-i', path], {
    signal,
    onStderrLine(line) {
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
  return usableChapters(chapters)
}

/** Chapters worth a track each: at least two, ordered, each longer than half a second. */
export function usableChapters(chapters: Chapter[]): Chapter[] {
  const sorted = chapters.filter((c) => c.end - c.start > 0.5).sort((a, b) => a.start - b.start)
  return sorted.length >= 2 ? sorted : []
}
