/** A part of a recording: `{title, start, end}` in seconds (a music job's chapters, src/music/schema.ts). */
export interface Chapter {
  title: string
  start: number
  end: number
}

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

/** Chapters worth a track each: at least two, ordered, each longer than half a second. */
export function usableChapters(chapters: Chapter[]): Chapter[] {
  const sorted = chapters.filter((c) => c.end - c.start > 0.5).sort((a, b) => a.start - b.start)
  return sorted.length >= 2 ? sorted : []
}
