// Whole-word matching of muted words and phrases (docs/decisions/251): a title and a muted entry are
// each cut into words, a word being a run of letters, digits and combining marks (any script); the
// entry matches when its words appear in the title in a row, case-insensitively. So `cat` hides
// "Cat videos" and "the cat's toy" but not "Concatenate"; "new cats" hides "NEW — cats!".

const WORD = /[\p{L}\p{N}\p{M}]+/gu

/** The words of `text`, lower-cased (canonically composed first, so é matches é however it was typed). */
export function wordsOf(text: string): string[] {
  return text.normalize('NFC').toLowerCase().match(WORD) ?? []
}

/** Whether `entry`'s words appear in a row among `title`'s words. An entry with no word matches nothing. */
export function containsPhrase(titleWords: string[], entryWords: string[]): boolean {
  if (entryWords.length === 0) return false
  outer: for (let i = 0; i + entryWords.length <= titleWords.length; i++) {
    for (let j = 0; j < entryWords.length; j++) if (titleWords[i + j] !== entryWords[j]) continue outer
    return true
  }
  return false
}

/** A tester for a list of muted entries: which of them (by index) a title contains. */
export function muteMatcher(entries: string[]) {
  const parsed = entries.map(wordsOf)
  const firstWords = new Set(parsed.filter((p) => p.length).map((p) => p[0]!))
  return {
    /** Indexes of the entries `title` contains. */
    hits(title: string): number[] {
      const words = wordsOf(title)
      // most titles share no word with any entry: one set lookup per word decides that
      if (!words.some((w) => firstWords.has(w))) return []
      const out: number[] = []
      parsed.forEach((p, i) => {
        if (containsPhrase(words, p)) out.push(i)
      })
      return out
    },
    mutes(title: string): boolean {
      const words = wordsOf(title)
      if (!words.some((w) => firstWords.has(w))) return false
      return parsed.some((p) => containsPhrase(words, p))
    },
  }
}
