import type { parseFile } from 'music-metadata'

/**
 * A song's lyrics as its file's own tags hold them (ID3 `USLT` plain, `SYLT` synced in
 * milliseconds), for getLyricsBySongId and getLyrics (docs/decisions/264). Tag text is untrusted:
 * control characters are removed and the size is bounded.
 */
export interface Lyrics {
  lang: string
  synced: boolean
  lines: { start?: number; value: string }[]
}

const MAX_LINES = 2000
const MAX_LINE = 500
const SYLT_MILLISECONDS = 2

export const clean = (s: string) =>
  s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffe\uffff]/g, '')
    .trim()
    .slice(0, MAX_LINE)

/** ISO 639-2 as the tag holds it (`eng`), `xxx` (not given) as `und`. */
const langOf = (l: string | undefined) => (l && /^[a-z]{3}$/i.test(l) && l.toLowerCase() !== 'xxx' ? l.toLowerCase() : 'und')

export async function readLyrics(path: string): Promise<Lyrics[]> {
  let tags: Awaited<ReturnType<typeof parseFile>>
  try {
    tags = await (await import('music-metadata')).parseFile(path, { skipCovers: true })
  } catch {
    return []
  }
  const out: Lyrics[] = []
  for (const l of tags.common.lyrics ?? []) {
    const synced = l.timeStampFormat === SYLT_MILLISECONDS && l.syncText.length > 0
    const lines = synced
      ? l.syncText.slice(0, MAX_LINES).map((x) => ({ start: Math.max(0, Math.round(x.timestamp ?? 0)), value: clean(x.text) }))
      : (l.text ?? l.syncText.map((x) => x.text).join('\n'))
          .split(/\r\n|\r|\n/)
          .slice(0, MAX_LINES)
          .map((value) => ({ value: clean(value) }))
    if (lines.some((x) => x.value)) out.push({ lang: langOf(l.language), synced, lines })
  }
  // synced first: players show the one they can follow
  return out.sort((a, b) => Number(b.synced) - Number(a.synced))
}

/** Plain text of lyrics (getLyrics). */
export const plainText = (l: Lyrics) => l.lines.map((x) => x.value).join('\n')

const TIME = /^\[(\d{1,3}):(\d{1,2}(?:[.:]\d{1,3})?)\]/
const ms = (m: string, s: string) => Math.round((Number(m) * 60 + Number(s.replace(':', '.'))) * 1000)

/**
 * Kept lyrics (a job's `lyrics`, docs/decisions/266) as lines: LRC (`[mm:ss.xx]text`, several
 * times per line allowed, `[offset:±ms]` applied, other `[tag:…]` lines dropped) is synced, in
 * ms and in time order; anything else is plain text, one line each.
 */
export function parseLyricsText(text: string): Lyrics {
  const raw = text.split(/\r\n|\r|\n/).slice(0, MAX_LINES)
  const timed: { start: number; value: string }[] = []
  let offset = 0
  for (const line of raw) {
    const tag = /^\[offset:\s*([+-]?\d+)\s*\]$/i.exec(line.trim())
    if (tag) offset = Number(tag[1])
    let rest = line.trim()
    const starts: number[] = []
    for (let m = TIME.exec(rest); m; m = TIME.exec(rest)) {
      starts.push(ms(m[1]!, m[2]!))
      rest = rest.slice(m[0].length)
    }
    for (const start of starts) timed.push({ start, value: clean(rest) })
  }
  if (timed.length) {
    // a positive offset shows the lines earlier (LRC's convention)
    const lines = timed.map((l) => ({ start: Math.max(0, l.start - offset), value: l.value })).sort((a, b) => a.start - b.start)
    return { lang: 'und', synced: true, lines }
  }
  return { lang: 'und', synced: false, lines: raw.map((value) => ({ value: clean(value) })) }
}

const two = (n: number) => String(n).padStart(2, '0')

/** Lines back to text to keep: LRC when synced (`[mm:ss.mmm]`, exact to the ms as SYLT is), else plain. */
export function lyricsText(l: Lyrics): string {
  if (!l.synced) return plainText(l)
  return l.lines
    .map((x) => {
      const start = x.start ?? 0
      return `[${two(Math.floor(start / 60_000))}:${two(Math.floor((start % 60_000) / 1000))}.${String(start % 1000).padStart(3, '0')}]${x.value}`
    })
    .join('\n')
}
