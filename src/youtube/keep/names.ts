/**
 * The media-server layout of kept videos (docs/api.md "Keeping videos", docs/decisions/282):
 * `<channel> [<channelId>]/Season <YYYY>/<channel> - <YYYY-MM-DD> - <title> [<videoId>].mp4`.
 * Titles come from YouTube and are untrusted: names lose `/`, `\`, control characters,
 * `:*?"<>|` and leading dots, and each name is cut to 200 bytes of UTF-8 with its `[id]` kept,
 * so no title can leave KEEP_DIR or make a name the file system refuses.
 */
const MAX_NAME_BYTES = 200
const encoder = new TextEncoder()
const bytes = (s: string) => encoder.encode(s).length

/** A title as a name part: the characters removed (not replaced), leading dots and spaces gone, runs of spaces made one. */
export function cleanName(title: string): string {
  return (
    title
      .replace(/[/\\:*?"<>|\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '')
      .replace(/\s+/g, ' ')
      .replace(/^[.\s]+/, '')
      .trim()
  )
}

/** `s` cut to at most `max` bytes of UTF-8 without splitting a character (or a surrogate pair). */
export function cutBytes(s: string, max: number): string {
  if (bytes(s) <= max) return s
  let out = ''
  let used = 0
  for (const ch of s) {
    const n = bytes(ch)
    if (used + n > max) break
    out += ch
    used += n
  }
  return out
}

/** `<text> [<id>]` within 200 bytes: the text is cut, the id always stays; no trailing dot or space before it. */
function withId(text: string, id: string): string {
  const suffix = `[${id}]`
  const room = MAX_NAME_BYTES - bytes(suffix) - 1
  const cut = cutBytes(text, Math.max(0, room)).replace(/[.\s]+$/, '')
  return cut ? `${cut} ${suffix}` : suffix
}

export const isoDay = (d: Date) => d.toISOString().slice(0, 10)

/** The show folder of a channel. */
export const showFolder = (channelTitle: string, channelId: string) => withId(cleanName(channelTitle), channelId)

/** A video's files, relative to KEEP_DIR: `base` without extension (add `.mp4`, `.nfo`, `-thumb.jpg`). */
export function episodePaths(channel: { id: string; title: string }, video: { id: string; title: string; publishedAt: Date }) {
  const show = showFolder(channel.title, channel.id)
  const season = `Season ${video.publishedAt.getUTCFullYear()}`
  const channelPart = cleanName(channel.title)
  const head = `${channelPart ? `${channelPart} - ` : ''}${isoDay(video.publishedAt)} - `
  const title = cleanName(video.title)
  // the channel's part is cut first only when even an empty title would not fit
  const room = MAX_NAME_BYTES - bytes(`[${video.id}]`) - 1
  const fittedHead = bytes(head) > room - 1 ? `${cutBytes(channelPart, Math.max(0, room - bytes(` - ${isoDay(video.publishedAt)} - `) - 1))} - ${isoDay(video.publishedAt)} - ` : head
  const base = withId(`${fittedHead}${title}`, video.id)
  return { show, season: `${show}/${season}`, base: `${show}/${season}/${base}` }
}

/** Episode number (docs/decisions/283): month × 10000 + day × 100 + n. */
export const episodeNumber = (publishedAt: Date, n: number) => (publishedAt.getUTCMonth() + 1) * 10000 + publishedAt.getUTCDate() * 100 + n

// ---- NFO (Kodi's XML; no DOCTYPE, text escaped, characters XML 1.0 refuses removed) ----

export function xmlText(s: string): string {
  return (
    s
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  )
}

const HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
const el = (name: string, value: string | number) => `  <${name}>${xmlText(String(value))}</${name}>\n`
const uid = (id: string) => `  <uniqueid type="youtube" default="true">${xmlText(id)}</uniqueid>\n`

export function tvshowNfo(channel: { id: string; title: string; description?: string }): string {
  return `${HEAD}<tvshow>\n${el('title', channel.title)}${el('plot', channel.description ?? '')}${uid(channel.id)}</tvshow>\n`
}

export function episodeNfo(
  channel: { title: string },
  video: { id: string; title: string; description: string; publishedAt: Date; duration: number },
  episode: number,
): string {
  const runtime = Math.max(1, Math.round(video.duration / 60))
  return (
    `${HEAD}<episodedetails>\n` +
    el('title', video.title) +
    el('showtitle', channel.title) +
    el('plot', video.description) +
    el('aired', isoDay(video.publishedAt)) +
    el('season', video.publishedAt.getUTCFullYear()) +
    el('episode', episode) +
    el('runtime', runtime) +
    uid(video.id) +
    '</episodedetails>\n'
  )
}
