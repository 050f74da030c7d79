/**
 * A song's kept lyrics (GET /api/music/jobs/{id}/lyrics: LRC or plain text) as lines for the
 * in-page player, by the server's own rules (src/subsonic/lyrics.ts, docs/decisions/266): LRC
 * (`[mm:ss.xx]text`, several times per line allowed, `[offset:±ms]` applied, other `[tag:…]`
 * lines dropped) is synced, in ms and in time order; anything else is plain text, one line each.
 */
export interface LyricLines {
  synced: boolean
  lines: { start?: number; value: string }[]
}

const MAX_LINES = 2000
const TIME = /^\[(\d{1,3}):(\d{1,2}(?:[.:]\d{1,3})?)\]/
const ms = (m: string, s: string) => Math.round((Number(m) * 60 + Number(s.replace(':', '.'))) * 1000)

export function parseLyrics(text: string): LyricLines {
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
    for (const start of starts) timed.push({ start, value: rest.trim() })
  }
  if (timed.length) {
    const lines = timed.map((l) => ({ start: Math.max(0, l.start - offset), value: l.value })).sort((a, b) => a.start - b.start)
    return { synced: true, lines }
  }
  // plain: blank lines at the ends dropped, the ones between verses kept
  const lines = raw.map((value) => ({ value: value.trim() }))
  while (lines.length && !lines[0]!.value) lines.shift()
  while (lines.length && !lines[lines.length - 1]!.value) lines.pop()
  return { synced: false, lines }
}

/** The index of the line sung at `seconds` (the last one started), or -1 before the first. */
export function currentLine(l: LyricLines, seconds: number): number {
  if (!l.synced) return -1
  const at = seconds * 1000
  let found = -1
  for (const [i, line] of l.lines.entries()) {
    if ((line.start ?? 0) <= at) found = i
    else break
  }
  return found
}
