import { inflateRawSync } from 'node:zlib'

/**
 * A small ZIP reader for release archives the app unpacks itself (the
 * PO-token provider's yt-dlp plugin): the central directory, stored and
 * deflated entries, each checked against its CRC-32 and size. Names are
 * returned as written; the caller decides which are acceptable (see
 * `safeEntryName`).
 */
export interface ZipEntry {
  name: string
  /** Unix mode from the archive (0 when the archive did not record one). */
  mode: number
  directory: boolean
  data: Uint8Array
}

export class BadZip extends Error {
  override name = 'BadZip'
}

const EOCD = 0x06054b50
const CENTRAL = 0x02014b50
const LOCAL = 0x04034b50

export function readZip(bytes: Uint8Array, opts: { maxEntries?: number; maxBytes?: number } = {}): ZipEntry[] {
  const maxEntries = opts.maxEntries ?? 1000
  const maxBytes = opts.maxBytes ?? 64 * 1024 * 1024
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let end = -1
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === EOCD) {
      end = i
      break
    }
  }
  if (end < 0) throw new BadZip('not a zip archive (no end of central directory)')
  const count = view.getUint16(end + 10, true)
  let at = view.getUint32(end + 16, true)
  if (count > maxEntries) throw new BadZip(`too many entries (${count})`)
  const decoder = new TextDecoder()
  const entries: ZipEntry[] = []
  let total = 0
  for (let n = 0; n < count; n++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== CENTRAL) throw new BadZip('damaged central directory')
    const method = view.getUint16(at + 10, true)
    const crc = view.getUint32(at + 16, true)
    const packed = view.getUint32(at + 20, true)
    const size = view.getUint32(at + 24, true)
    const nameLength = view.getUint16(at + 28, true)
    const extraLength = view.getUint16(at + 30, true)
    const commentLength = view.getUint16(at + 32, true)
    const external = view.getUint32(at + 38, true)
    const local = view.getUint32(at + 42, true)
    const name = decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength))
    at += 46 + nameLength + extraLength + commentLength
    total += size
    if (total > maxBytes) throw new BadZip(`more than ${maxBytes} bytes unpacked`)
    if (local + 30 > bytes.length || view.getUint32(local, true) !== LOCAL) throw new BadZip(`damaged entry ${name}`)
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true)
    const raw = bytes.subarray(start, start + packed)
    if (raw.length !== packed) throw new BadZip(`truncated entry ${name}`)
    let data: Uint8Array
    if (method === 0) data = raw
    else if (method === 8) data = new Uint8Array(inflateRawSync(raw, { maxOutputLength: Math.max(size, 1) }))
    else throw new BadZip(`entry ${name} uses compression method ${method}`)
    if (data.length !== size || (Bun.hash.crc32(data) >>> 0) !== crc) throw new BadZip(`entry ${name} does not match its checksum`)
    const mode = (external >>> 16) & 0xffff
    entries.push({ name, mode, directory: name.endsWith('/'), data })
  }
  return entries
}

/** True for a relative name without `..`, backslashes or a drive, that is not a symbolic link. */
export function safeEntry(entry: ZipEntry): boolean {
  const { name } = entry
  if (!name || name.startsWith('/') || name.includes('\\') || /^[a-zA-Z]:/.test(name)) return false
  if (name.split('/').some((part) => part === '..' || part === '.')) return false
  return (entry.mode & 0o170000) !== 0o120000
}
