import type { Chapter } from '../../tools/chapters.ts'
import { type Span, videoToFile } from './cut-time.ts'

/**
 * An episode's chapters and transcript in the served file's time (docs/decisions/291): made once
 * when the episode is cut, from the video's chapters and subtitles (fetched with its audio).
 * After a cut everything moves earlier by its length (cut-time.ts); a chapter starting inside a
 * cut starts at its end; a cue overlapping a cut keeps its kept part; a chapter or cue wholly
 * inside a cut is left out. Subtitles are untrusted text: bounded in size, control characters
 * and markup removed, `&`, `<` and `>` escaped as WebVTT asks.
 */

/** The largest subtitle file read (a 3-hour talk's automatic captions are about 1 MB). */
export const MAX_SUBTITLE_BYTES = 4 * 1024 * 1024
/** The most cues kept, and the longest text of one. */
const MAX_CUES = 20_000
const MAX_CUE_CHARS = 500
const MAX_CHAPTERS = 500
const MAX_TITLE_CHARS = 200

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufffe\uffff]/g
const oneLine = (s: string, max: number) => s.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim().slice(0, max)
const ms = (t: number) => Math.round(t * 1000) / 1000

export interface FileChapter {
  startTime: number
  endTime: number
  title: string
}

/** The video's chapters in the file's time, in order, without those wholly cut out. */
export function fileChapters(chapters: readonly Chapter[], spans: readonly Span[], fileDuration?: number): FileChapter[] {
  const out: FileChapter[] = []
  for (const c of [...chapters].sort((a, b) => a.start - b.start).slice(0, MAX_CHAPTERS)) {
    const start = videoToFile(c.start, spans)
    let end = videoToFile(c.end, spans)
    if (fileDuration !== undefined) end = Math.min(end, fileDuration)
    if (end - start <= 0.001) continue
    out.push({ startTime: ms(start), endTime: ms(end), title: oneLine(c.title, MAX_TITLE_CHARS) || `Chapter ${out.length + 1}` })
  }
  return out
}

/** JSON Chapters 1.2.0 (the Podcast Namespace's chapters format). */
export const jsonChapters = (chapters: readonly FileChapter[]) => ({ version: '1.2.0', chapters: chapters.map((c) => ({ startTime: c.startTime, title: c.title })) })

export interface Cue {
  start: number
  end: number
  text: string
}

const TIME = /^(?:(\d+):)?([0-5]?\d):([0-5]\d)[.,](\d{1,3})$/
function seconds(s: string): number | null {
  const m = TIME.exec(s.trim())
  if (!m) return null
  return Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(m[4]!.padEnd(3, '0')) / 1000
}

/** The cues of a WebVTT file as plain text (tags, inline times and entities read, settings dropped); a bounded number. */
export function parseVtt(vtt: string): Cue[] {
  const cues: Cue[] = []
  const blocks = vtt.replace(/^\ufeff/, '').replace(/\r\n?/g, '\n').split(/\n{2,}/)
  for (const block of blocks) {
    if (cues.length >= MAX_CUES) break
    const lines = block.split('\n')
    const at = lines.findIndex((l) => l.includes('-->'))
    if (at < 0) continue
    const [from, rest] = lines[at]!.split('-->')
    const start = seconds(from ?? '')
    const end = seconds((rest ?? '').trim().split(/\s+/)[0] ?? '')
    if (start === null || end === null || !(end > start)) continue
    const text = lines
      .slice(at + 1)
      .map((l) =>
        l
          .replace(/<[^>]*>/g, '')
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&nbsp;/g, ' ')
          .replace(/&amp;/g, '&')
          .replace(CONTROL, '')
          .trim(),
      )
      .filter(Boolean)
      .join('\n')
      .slice(0, MAX_CUE_CHARS)
    if (text) cues.push({ start, end, text })
  }
  return cues
}

/** The cues in the file's time: shifted past each cut, clipped to their kept part, those wholly cut out left out. */
export function fileCues(cues: readonly Cue[], spans: readonly Span[]): Cue[] {
  const out: Cue[] = []
  for (const c of cues) {
    const start = videoToFile(c.start, spans)
    const end = videoToFile(c.end, spans)
    if (end - start > 0.001) out.push({ start: ms(start), end: ms(end), text: c.text })
  }
  return out
}

const stamp = (t: number) => {
  const total = Math.round(t * 1000)
  const h = Math.floor(total / 3_600_000)
  const m = Math.floor((total % 3_600_000) / 60_000)
  const s = Math.floor((total % 60_000) / 1000)
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}.${String(total % 1000).padStart(3, '0')}`
}
const vttText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** A WebVTT file of the cues. */
export function writeVtt(cues: readonly Cue[]): string {
  return `WEBVTT\n\n${cues.map((c) => `${stamp(c.start)} --> ${stamp(c.end)}\n${vttText(c.text)}\n`).join('\n')}`
}

/** The subtitle file to use: for each language in order, the first there is (yt-dlp put the hand-made one before the automatic). */
export function pickSubtitle(files: readonly string[], langs: readonly string[]): { file: string; lang: string } | null {
  for (const lang of langs) {
    const file = files.find((f) => f.endsWith(`.${lang}.vtt`))
    if (file) return { file, lang }
  }
  return null
}
