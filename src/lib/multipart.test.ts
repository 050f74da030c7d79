import { describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MalformedMultipart, MultipartReader, TooLarge } from './multipart.ts'

const dir = mkdtempSync(join(tmpdir(), 'multipart-test-'))

/** A body delivered in chunks of `size` bytes. */
function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let offset = 0
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close()
      controller.enqueue(bytes.slice(offset, offset + size))
      offset += size
    },
  })
}

async function readAll(stream: ReadableStream<Uint8Array>, boundary: string) {
  const form = new MultipartReader(stream.getReader(), boundary)
  const out: Record<string, string | Buffer> = {}
  for (let part; (part = await form.next()); ) {
    if (part.filename !== undefined) {
      const path = join(dir, `f-${Math.random()}`)
      await form.saveTo(path, 1 << 20)
      out[`${part.name}:${part.filename}`] = readFileSync(path)
    } else out[part.name] = await form.text(1 << 20)
  }
  return out
}

// binary content full of near-boundaries: CR, LF, dashes, a boundary prefix
const nasty = Buffer.concat([Buffer.from('\r\n--\r\n-\r--XY\r\n--boundar'), Buffer.from(Array.from({ length: 300 }, (_, i) => i % 256))])

describe('MultipartReader', () => {
  test('every chunking of a browser-made body gives the same fields and file', async () => {
    const form = new FormData()
    form.append('title', 'Ünïcode title')
    form.append('empty', '')
    form.append('file', new Blob([nasty]), 'my "song".mp3')
    form.append('after', 'the end')
    const res = new Response(form)
    const boundary = /boundary=(.+)$/.exec(res.headers.get('content-type')!)![1]!
    const body = new Uint8Array(await res.arrayBuffer())
    for (const size of [1, 2, 3, 7, 16, 63, 64, 65, 100, 4096]) {
      const out = await readAll(chunked(body, size), boundary)
      expect(out.title).toBe('Ünïcode title')
      expect(out.empty).toBe('')
      expect(out.after).toBe('the end')
      const file = Object.entries(out).find(([k]) => k.startsWith('file:'))!
      expect(file[0]).toMatch(/^file:my (%22|"|\\")song(%22|"|\\")\.mp3$/)
      expect(Buffer.compare(file[1] as Buffer, nasty)).toBe(0)
    }
  })

  test('preamble, quoted and RFC 5987 names, epilogue', async () => {
    const body =
      'ignored preamble\r\n--B\r\nContent-Disposition: form-data; name="a\\"b"\r\n\r\nx\r\n' +
      "--B\r\nContent-Disposition: form-data; name=f; filename*=UTF-8''%C3%A9t%C3%A9.wav\r\nContent-Type: audio/wav\r\n\r\nRIFF\r\n--B--\r\nepilogue"
    const out = await readAll(chunked(new TextEncoder().encode(body), 5), 'B')
    expect(out['a"b']).toBe('x')
    expect((out['f:été.wav'] as Buffer).toString()).toBe('RIFF')
  })

  test('a body cut short, or with huge part headers, is malformed', async () => {
    const cut = '--B\r\nContent-Disposition: form-data; name="a"\r\n\r\nno end'
    await expect(readAll(chunked(new TextEncoder().encode(cut), 4), 'B')).rejects.toBeInstanceOf(MalformedMultipart)
    const huge = `--B\r\nX-Pad: ${'a'.repeat(40_000)}\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--B--`
    await expect(readAll(chunked(new TextEncoder().encode(huge), 1000), 'B')).rejects.toBeInstanceOf(MalformedMultipart)
    const nameless = '--B\r\nContent-Type: text/plain\r\n\r\nv\r\n--B--'
    await expect(readAll(chunked(new TextEncoder().encode(nameless), 1000), 'B')).rejects.toBeInstanceOf(MalformedMultipart)
  })

  test('a file past its limit stops the read', async () => {
    const body = `--B\r\nContent-Disposition: form-data; name="f"; filename="x"\r\n\r\n${'z'.repeat(5000)}\r\n--B--`
    const form = new MultipartReader(chunked(new TextEncoder().encode(body), 512).getReader(), 'B')
    await form.next()
    await expect(form.saveTo(join(dir, 'limited'), 1000)).rejects.toBeInstanceOf(TooLarge)
  })
})
