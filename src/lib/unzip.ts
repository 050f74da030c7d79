import { inflateRawSync } from 'node:zlib'

/**
 * Reads one file out of a ZIP held in memory: stored (method 0) or deflated
 * (method 8), checked against its CRC-32 and size. Enough for a release
 * archive such as Deno's (one `deno` entry), with no `unzip` on the machine
 * (the compiled binary runs where it may be missing). ZIP64, encryption and
 * other methods are refused with a ZipError.
 */
export class ZipError extends Error {
  override name = 'ZipError'
}

const EOCD = 0x06054b50
const CENTRAL = 0x02014b50
const LOCAL = 0x04034b50

export function readZipEntry(zip: Uint8Array, name: string, maxSize: number): Uint8Array {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength)
  const u16 = (at: number) => view.getUint16(at, true)
  const u32 = (at: number) => view.getUint32(at, true)
  const inside = (at: number, length: number) => at >= 0 && length >= 0 && at + length <= zip.byteLength

  // the end-of-central-directory record: 22 bytes plus a comment of up to 64 KB, at the very end
  let end = -1
  for (let at = zip.byteLength - 22; at >= Math.max(0, zip.byteLength - 22 - 0xffff); at--) {
    if (u32(at) === EOCD) {
      end = at
      break
    }
  }
  if (end < 0) throw new ZipError('not a ZIP archive (no end of central directory)')
  const entries = u16(end + 10)
  const dirSize = u32(end + 12)
  const dirOffset = u32(end + 16)
  if (entries === 0xffff || dirOffset === 0xffffffff || dirSize === 0xffffffff) throw new ZipError('ZIP64 archives are not supported')
  if (!inside(dirOffset, dirSize)) throw new ZipError('the central directory lies outside the archive')

  const wanted = new TextEncoder().encode(name)
  let at = dirOffset
  for (let i = 0; i < entries; i++) {
    if (!inside(at, 46) || u32(at) !== CENTRAL) throw new ZipError('damaged central directory')
    const flags = u16(at + 8)
    const method = u16(at + 10)
    const crc = u32(at + 16)
    const packed = u32(at + 20)
    const size = u32(at + 24)
    const nameLength = u16(at + 28)
    const next = at + 46 + nameLength + u16(at + 30) + u16(at + 32)
    const local = u32(at + 42)
    if (!inside(at + 46, nameLength)) throw new ZipError('damaged central directory')
    const entryName = zip.subarray(at + 46, at + 46 + nameLength)
    at = next
    if (!sameBytes(entryName, wanted)) continue

    if (flags & 1) throw new ZipError(`${name} is encrypted`)
    if (size > maxSize) throw new ZipError(`${name} is ${size} bytes, more than ${maxSize}`)
    if (!inside(local, 30) || u32(local) !== LOCAL) throw new ZipError(`damaged local header for ${name}`)
    const start = local + 30 + u16(local + 26) + u16(local + 28)
    if (!inside(start, packed)) throw new ZipError(`${name} lies outside the archive`)
    const data = zip.subarray(start, start + packed)
    let out: Uint8Array
    if (method === 0) out = data
    else if (method === 8) {
      try {
        out = new Uint8Array(inflateRawSync(data, { maxOutputLength: Math.max(size, 1) }))
      } catch (err) {
        throw new ZipError(`${name} does not inflate: ${(err as Error).message}`)
      }
    } else throw new ZipError(`${name} uses compression method ${method}; only stored and deflated are read`)
    if (out.byteLength !== size) throw new ZipError(`${name} is ${out.byteLength} bytes, the archive says ${size}`)
    if (Bun.hash.crc32(out) >>> 0 !== crc) throw new ZipError(`${name} fails its CRC-32 check`)
    return out
  }
  throw new ZipError(`the archive holds no ${name}`)
}

function sameBytes(a: Uint8Array, b: Uint8Array) {
  if (a.byteLength !== b.byteLength) return false
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false
  return true
}
