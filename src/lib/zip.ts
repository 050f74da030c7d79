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
      const local = Buffer.alloc(30)
      local.writeUInt32LE(0x04034b50, 0)
      local.writeUInt16LE(20, 4) // version needed
      local.writeUInt16LE(0x0800, 6) // UTF-8 names
      local.writeUInt16LE(0, 8) // stored
      local.writeUInt16LE(time, 10)
      local.writeUInt16LE(date, 12)
      local.writeUInt32LE(crc, 14)
      local.writeUInt32LE(data.length, 18)
      local.writeUInt32LE(data.length, 22)
      local.writeUInt16LE(name.length, 26)
      local.writeUInt16LE(0, 28)
      await out.write(local)
      await out.write(name)
      await out.write(data)
      const entry = Buffer.alloc(46)
      entry.writeUInt32LE(0x02014b50, 0)
      entry.writeUInt16LE(20, 4) // made by
      entry.writeUInt16LE(20, 6)
      entry.writeUInt16LE(0x0800, 8)
      entry.writeUInt16LE(0, 10)
      entry.writeUInt16LE(time, 12)
      entry.writeUInt16LE(date, 14)
      entry.writeUInt32LE(crc, 16)
      entry.writeUInt32LE(data.length, 20)
      entry.writeUInt32LE(data.length, 24)
      entry.writeUInt16LE(name.length, 28)
      entry.writeUInt32LE(offset, 42)
      central.push(entry, name)
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

function dosTime(d: Date) {
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
    date: ((d.getFullYear() - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  }
}
