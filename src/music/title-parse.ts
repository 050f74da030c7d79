/**
 * Artist and title from an upload's title, the way people title uploads:
 * "Artist - Title (Official Video) [4K]", "Artist – Title", "Title | Artist",
 * `Artist "Title"`. Noise (official video, lyrics, audio, HD/4K, visualizer)
 * is removed; "feat." / "ft." stays with the title (moved there when it sat
 * with the artist). Pure: no I/O.
 */
export interface ParsedTitle {
  title: string
  artist: string | null
}

const NOISE_WORDS = [
  'official\\s+(?:music\\s+|lyrics?\\s+|hd\\s+|4k\\s+)?(?:video|audio|visuali[sz]er|clip|mv)(?:\\s+hd)?',
  'official',
  '(?:video|clip)\\s+oficial',
  'music\\s+video',
  'lyrics?(?:\\s+video)?',
  'with\\s+lyrics',
  'visuali[sz]er',
  'audio(?:\\s+only)?',
  'hd|hq|4k|8k|uhd|1080p|720p|2160p|mv|m\\/v',
  '(?:full\\s+)?(?:hd|hq)\\s+(?:video|audio)',
  'full\\s+(?:album|ep)',
]
const NOISE = new RegExp(`^(?:${NOISE_WORDS.join('|')})$`, 'i')

/** `(...)` and `[...]` groups whose whole content is noise are dropped; others stay. */
function dropNoiseGroups(s: string): string {
  return s.replace(/\s*[([【]([^()[\]【】]*)[)\]】]/g, (whole, inner: string) => (NOISE.test(inner.trim()) ? '' : whole))
}

/** A trailing "| Official Video" or "- Lyrics" style tail. */
function dropNoiseTail(s: string): string {
  return s.replace(/\s+[|/-]\s+([^|/-]+)$/, (whole, inner: string) => (NOISE.test(inner.trim()) ? '' : whole))
}

const FEAT = /\s+[([]?(?:feat\.?|ft\.?|featuring)\s+([^)\]]+?)[)\]]?$/i

const tidy = (s: string) => s.replace(/\s+/g, ' ').replace(/^[\s"'“”«»-]+|[\s"'“”«»-]+$/g, '').trim()

/** "A ft. B - Title": artist A, "(feat. B)" moved to the title. */
function splitFeat(artist: string): { artist: string; feat: string | null } {
  const m = FEAT.exec(artist)
  if (!m || m.index === 0) return { artist, feat: null }
  return { artist: artist.slice(0, m.index).trim(), feat: m[1]!.trim() }
}

/** A channel name as an artist: YouTube's "Artist - Topic" and "ArtistVEVO" become "Artist". */
export function artistFromChannel(channel: string | null | undefined): string | null {
  if (!channel) return null
  const s = channel
    .replace(/\s+-\s+Topic$/i, '')
    .replace(/\s*VEVO$/i, '')
    .trim()
  return s || null
}

export function parseUploadTitle(raw: string): ParsedTitle {
  let s = dropNoiseTail(dropNoiseGroups(raw.normalize('NFC').replace(/\s+/g, ' ').trim()))
  s = dropNoiseGroups(s).trim()

  let artist: string | null = null
  let title = s
  // "Artist - Title" (hyphen with spaces, en dash, em dash, or a tilde)
  const dash = /\s+[-–—~]\s+/.exec(s)
  if (dash) {
    artist = s.slice(0, dash.index)
    title = s.slice(dash.index + dash[0].length)
  } else {
    // Artist "Title" / Artist 「Title」
    const quoted = /^(.+?)\s+["“「『](.+)["”」』]\s*(.*)$/.exec(s)
    if (quoted) {
      artist = quoted[1]!
      title = `${quoted[2]}${quoted[3] ? ` ${quoted[3]}` : ''}`
    } else {
      // "Title | Artist"
      const bar = /\s+[|｜]\s+/.exec(s)
      if (bar) {
        title = s.slice(0, bar.index)
        artist = s.slice(bar.index + bar[0].length).split(/\s+[|｜]\s+/)[0]!
      }
    }
  }
  // a tail after a bar ("Title | Label Records") is not part of the title
  if (dash) title = title.split(/\s+[|｜]\s+/)[0]!
  title = tidy(dropNoiseGroups(title).replace(/^["“「『]|["”」』]$/g, ''))

  if (artist) {
    const { artist: main, feat } = splitFeat(tidy(artist))
    artist = main || null
    if (feat && !FEAT.test(title)) title = `${title} (feat. ${feat})`
  }
  // "Title ft. X" is written the usual way: "Title (feat. X)"
  title = title.replace(/\s+(?:ft\.?|feat\.?|featuring)\s+([^()[\]]+)$/i, ' (feat. $1)')
  return { title: title || tidy(raw), artist: artist || null }
}
