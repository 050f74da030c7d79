import { parseFile } from 'music-metadata'

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

const clean = (s: string) =>
  s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffe\uffff]/g, '')
    .trim()
    .slice(0, MAX_LINE)

/** ISO 639-2 as the tag holds it (`eng`), `xxx` (not given) as `und`. */
const langOf = (l: string | undefined) => (l && /^[a-z]{3}$/i.test(l) && l.toLowerCase() !== 'xxx' ? l.toLowerCase() : 'und')

export async function readLyrics(path: string): Promise<Lyrics[]> {
  let tags: Awaited<ReturnType<typeof parseFile>>
  try {
    tags = await parseFile(path, { skipCovers: true })
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
