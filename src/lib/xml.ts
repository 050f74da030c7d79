/**
 * The one XML-escaping helper of the feeds (RSS, OPML, and any XML the server writes): text or an
 * attribute value with the five special characters escaped and what XML 1.0 refuses removed
 * (control characters other than tab and newlines, U+FFFE/U+FFFF, lone surrogates).
 */
export function xmlText(s: string): string {
  return s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '')
    .replace(/[<>&'"]/g, (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[ch]!)
}
