import { open } from 'node:fs/promises'

/**
 * Writes a ZIP of `files` (stored, not deflated: MP3s do not compress) to
 * `path`, one file at a time so memory stays at one file's size. UTF-8
 * names (flag bit 11); ZIP32, so each file and the whole stay under 4 GB.
 */
export async function writeZip(path: string, files: { name: string; path: string }[]): Promise<void> {
  const out = await open(path, 'w')
  const central: Buffer[] = []
  let offset = 0
  const { time, date } = dosTime(new Date())
  try {
    for (const file of files) {
      const data = new Uint8Array(await Bun.file(file.path).arrayBuffer())
      const name = Buffer.from(file.name, 'utf8')
      const crc = Bun.hash.crc32(data) >>> 0
      const entry = { time, date, crc, size: data.length, nameLength: name.length }
      const local = Buffer.alloc(30)
      local.writeUInt32LE(0x04034b50, 0)
      writeEntryFields(local, 4, entry)
      local.writeUInt16LE(0, 28) // no extra field
      await out.write(local)
      await out.write(name)
      await out.write(data)
      const header = Buffer.alloc(46)
      header.writeUInt32LE(0x02014b50, 0)
      header.writeUInt16LE(20, 4) // made by
      writeEntryFields(header, 6, entry)
      header.writeUInt32LE(offset, 42)
      central.push(header, name)
      offset += local.length + name.length + data.length
    }
    const dir = Buffer.concat(central)
    const end = Buffer.alloc(22)
    end.writeUInt32LE(0x06054b50, 0)
    end.writeUInt16LE(files.length, 8)
    end.writeUInt16LE(files.length, 10)
    end.writeUInt32LE(dir.length, 12)
    end.writeUInt32LE(offset, 16)
    await out.write(dir)
    await out.write(end)
  } finally {
    await out.close()
  }
}

/**
 * The 26 bytes a local file header (at 4) and its central directory header (at 6) share:
 * version needed, flags (UTF-8 names), method (stored), time, date, CRC-32, both sizes, name length.
 */
function writeEntryFields(buf: Buffer, at: number, e: { time: number; date: number; crc: number; size: number; nameLength: number }) {
  buf.writeUInt16LE(20, at) // version needed
  buf.writeUInt16LE(0x0800, at + 2) // UTF-8 names
  buf.writeUInt16LE(0, at + 4) // stored
  buf.writeUInt16LE(e.time, at + 6)
  buf.writeUInt16LE(e.date, at + 8)
  buf.writeUInt32LE(e.crc, at + 10)
  buf.writeUInt32LE(e.size, at + 14)
  buf.writeUInt32LE(e.size, at + 18)
  buf.writeUInt16LE(e.nameLength, at + 22)
}

function dosTime(d: Date) {
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
    date: ((d.getFullYear() - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  }
}
