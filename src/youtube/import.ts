/**
 * Reads a subscriptions export: Google Takeout's `subscriptions.csv`, a
 * NewPipe JSON export, or an OPML file of channel feeds. Returns the channel
 * references in file order, without duplicates (ids `UC...`, or `@handle`s
 * where a file only has those), or throws ImportError with a message for the
 * user.
 */
export class ImportError extends Error {}

export type ImportFormat = 'takeout-csv' | 'newpipe-json' | 'opml'

const CHANNEL_ID = /^UC[\w-]{22}$/
const ID_IN_TEXT = /(?:channel\/|channel_id=)(UC[\w-]{22})/
const HANDLE_IN_URL = /youtube\.com\/(@[\w.-]{3,100})/

/** A channel id or @handle from a URL or bare value; null when it has neither. */
export function channelRefFrom(value: string): string | null {
  const v = value.trim()
  if (CHANNEL_ID.test(v)) return v
  const id = ID_IN_TEXT.exec(v)?.[1]
  if (id) return id
  const handle = HANDLE_IN_URL.exec(v)?.[1]
  return handle ? handle.toLowerCase() : null
}

/** RFC 4180 CSV (quoted fields, doubled quotes, CRLF or LF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"'
          i++
        } else quoted = false
      } else field += ch
    } else if (ch === '"' && field === '') quoted = true
    else if (ch === ',') {
      row.push(field)
      field = ''
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++
      row.push(field)
      rows.push(row)
      row = []
      field = ''
    } else field += ch
  }
  if (quoted) throw new ImportError('The CSV file has an unclosed quote.')
  if (field !== '' || row.length) {
    row.push(field)
    rows.push(row)
  }
  return rows.filter((r) => r.some((f) => f.trim() !== ''))
}

function fromTakeout(text: string): string[] {
  const rows = parseCsv(text)
  const header = rows[0]?.map((h) => h.trim().toLowerCase()) ?? []
  const idCol = header.findIndex((h) => h === 'channel id' || h === 'channel_id')
  const urlCol = header.findIndex((h) => h === 'channel url' || h === 'channel_url')
  if (idCol < 0 && urlCol < 0) throw new ImportError('The CSV file has no "Channel Id" column.')
  return rows.slice(1).map((r) => channelRefFrom(r[idCol] ?? '') ?? channelRefFrom(r[urlCol] ?? '') ?? '')
}

function fromNewPipe(text: string): string[] {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    throw new ImportError('The JSON file is not valid JSON.')
  }
  const subs = (data as { subscriptions?: unknown })?.subscriptions
  if (!Array.isArray(subs)) throw new ImportError('The JSON file has no "subscriptions" list (NewPipe export expected).')
  return subs
    // service 0 is YouTube in NewPipe; other services (SoundCloud, PeerTube...) are skipped
    .filter((s) => s && typeof s === 'object' && ((s as { service_id?: unknown }).service_id ?? 0) === 0)
    .map((s) => channelRefFrom(String((s as { url?: unknown }).url ?? '')) ?? '')
}

const xmlAttr = (tag: string, name: string) => {
  const m = new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)')`, 'i').exec(tag)
  return m ? (m[2] ?? m[3] ?? '').replace(/&amp;/g, '&') : ''
}

function fromOpml(text: string): string[] {
  if (!/<opml[\s>]/i.test(text) || !/<body[\s>]/i.test(text)) throw new ImportError('The XML file is not an OPML document.')
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new ImportError('The OPML file may not declare a DOCTYPE or entities.')
  const refs: string[] = []
  for (const [tag] of text.matchAll(/<outline\b[^>]*>/gi)) {
    const url = xmlAttr(tag, 'xmlUrl') || xmlAttr(tag, 'htmlUrl')
    if (url) refs.push(channelRefFrom(url) ?? '')
  }
  return refs
}

export function detectFormat(text: string): ImportFormat {
  const start = text.replace(/^\uFEFF/, '').trimStart()
  if (start.startsWith('{') || start.startsWith('[')) return 'newpipe-json'
  if (start.startsWith('<')) return 'opml'
  return 'takeout-csv'
}

/** Channel references in the file, deduplicated, plus how many entries named no channel. */
export function parseSubscriptionsFile(text: string): { format: ImportFormat; refs: string[]; invalid: number } {
  const clean = text.replace(/^\uFEFF/, '')
  const format = detectFormat(clean)
  const raw = format === 'newpipe-json' ? fromNewPipe(clean) : format === 'opml' ? fromOpml(clean) : fromTakeout(clean)
  const refs = [...new Set(raw.filter((r) => r !== ''))]
  const invalid = raw.filter((r) => r === '').length
  if (refs.length === 0 && invalid === 0) throw new ImportError('The file lists no channels.')
  if (refs.length === 0) throw new ImportError('The file names no YouTube channels.')
  return { format, refs, invalid }
}
