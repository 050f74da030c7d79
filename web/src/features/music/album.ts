/**
 * docs/product.md#album-from-title: the album derived from a track title.
 *
 *  1. the text before the first parenthesis, trimmed;
 *  2. if it has more than 2 words and parentheses follow, abbreviated to their initials (a
 *     single, with no parentheses, keeps its title whole: docs/decisions/274);
 *  3. then ' - ' plus the last word inside the parentheses, or ' - Single' if there is none.
 *
 *     albumFromTitle('Blue Monday')                        // 'Blue Monday - Single'
 *     albumFromTitle('Ranking lost maps #1')               // 'Ranking lost maps #1 - Single'
 *     albumFromTitle('Blue Monday (Extended Mix)')         // 'Blue Monday - Mix'
 *     albumFromTitle('Never Gonna Give You Up (Remix)')    // 'NGGYU - Remix'
 *
 * Words are separated by any whitespace; initials keep their case. The
 * parentheses are the first pair (an unclosed one runs to the end). A title
 * that is empty gives an empty album, so the field stays 'Required'; a title
 * that starts with a parenthesis has no text before it, so the album is just
 * the word from inside the parentheses (or 'Single').
 */
export function albumFromTitle(title: string): string {
  const open = title.indexOf('(')
  const before = (open === -1 ? title : title.slice(0, open)).trim()
  if (before === '' && open === -1) return ''

  const words = before.split(/\s+/).filter(Boolean)
  // initials only for a version of something (parentheses); a single's album is its title
  const name = words.length > 2 && open !== -1 ? words.map((w) => Array.from(w)[0]).join('') : words.join(' ')

  let suffix = 'Single'
  if (open !== -1) {
    const close = title.indexOf(')', open + 1)
    const inside = title.slice(open + 1, close === -1 ? undefined : close)
    const last = inside.trim().split(/\s+/).filter(Boolean).pop()
    if (last) suffix = last
  }
  return name ? `${name} - ${suffix}` : suffix
}
