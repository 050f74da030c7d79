import { createServer } from 'node:http'
import { deflateRawSync } from 'node:zlib'

/**
 * A stand-in of Deno's GitHub release download on 127.0.0.1, as the managed
 * Deno fetches it: `<url>/deno-<target>.zip` and `<url>/deno-<target>.zip.sha256sum`
 * (sha256sum's `<hash>  <name>` line, as Deno publishes it). `publish` sets the
 * zip (made by `zipOf`) and, optionally, a wrong checksum. Each request path is logged in `hits`.
 */
export interface DenoRelease {
  url: string
  hits: string[]
  publish(zip: Uint8Array, opts?: { sum?: string }): void
  stop(): Promise<void>
}

export const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex')

export async function startDenoRelease(target: string): Promise<DenoRelease> {
  const asset = `deno-${target}.zip`
  let zip: Uint8Array | null = null
  let sum = ''
  const hits: string[] = []
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    hits.push(path)
    if (zip && path === `/${asset}`) {
      res.writeHead(200, { 'content-type': 'application/zip', 'content-length': zip.byteLength })
      res.end(zip)
    } else if (zip && path === `/${asset}.sha256sum`) res.end(`${sum}  ${asset}\n`)
    else res.writeHead(404).end('Not Found')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    publish(bytes, opts = {}) {
      zip = bytes
      sum = opts.sum ?? sha256(bytes)
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** A ZIP of `files` in memory, each deflated (level 1) or stored; the executable bit kept in the external attributes. */
export function zipOf(files: { name: string; data: Uint8Array }[], opts: { deflate?: boolean } = {}): Uint8Array {
  const parts: Uint8Array[] = []
  const central: Uint8Array[] = []
  let offset = 0
  for (const file of files) {
    const name = new TextEncoder().encode(file.name)
    const packed = opts.deflate ? new Uint8Array(deflateRawSync(file.data, { level: 1 })) : file.data
    const crc = Bun.hash.crc32(file.data) >>> 0
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(opts.deflate ? 8 : 0, 8)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(packed.byteLength, 18)
    local.writeUInt32LE(file.data.byteLength, 22)
    local.writeUInt16LE(name.byteLength, 26)
    const header = Buffer.alloc(46)
    header.writeUInt32LE(0x02014b50, 0)
    header.writeUInt16LE(0x0314, 4) // made by Unix
    header.writeUInt16LE(20, 6)
    header.writeUInt16LE(opts.deflate ? 8 : 0, 10)
    header.writeUInt32LE(crc, 16)
    header.writeUInt32LE(packed.byteLength, 20)
    header.writeUInt32LE(file.data.byteLength, 24)
    header.writeUInt16LE(name.byteLength, 28)
    header.writeUInt32LE((0o100755 << 16) >>> 0, 38)
    header.writeUInt32LE(offset, 42)
    parts.push(local, name, packed)
    central.push(header, name)
    offset += 30 + name.byteLength + packed.byteLength
  }
  const dirSize = central.reduce((n, c) => n + c.byteLength, 0)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(files.length, 8)
  end.writeUInt16LE(files.length, 10)
  end.writeUInt32LE(dirSize, 12)
  end.writeUInt32LE(offset, 16)
  return new Uint8Array(Buffer.concat([...parts, ...central, end]))
}
