import { describe, expect, test } from 'bun:test'
import { closeSync, constants, mkdtempSync, openSync, readSync, statSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PIPE_BYTES, enlargePipe, makeFifo } from './fifo.ts'

const dir = mkdtempSync(join(tmpdir(), 'tunefeed-fifo-'))

describe('the measuring FIFO (libc through bun:ffi)', () => {
  test('makeFifo makes a FIFO only its owner can read or write', async () => {
    const path = join(dir, 'made')
    await makeFifo(path)
    const stat = statSync(path)
    expect(stat.isFIFO()).toBe(true)
    expect(stat.mode & 0o777).toBe(0o600)
    // an existing path is refused, not reused
    await expect(makeFifo(path)).rejects.toThrow('mkfifo')
  })

  test('enlargePipe gives the pipe 1 MB: a writer puts 1 MB in before anyone reads', async () => {
    const path = join(dir, 'enlarged')
    await makeFifo(path)
    const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
    const writer = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK)
    try {
      expect(enlargePipe(reader)).toBe(PIPE_BYTES)
      const chunk = new Uint8Array(64 * 1024).fill(7)
      let written = 0
      // without the enlargement the 65th KB would fail with EAGAIN (a pipe holds 64 KB by default)
      while (written < PIPE_BYTES) written += writeSync(writer, chunk)
      expect(written).toBe(PIPE_BYTES)
      expect(() => writeSync(writer, chunk)).toThrow(/EAGAIN/)
      const back = new Uint8Array(PIPE_BYTES)
      expect(readSync(reader, back)).toBe(PIPE_BYTES)
      expect(back.every((b) => b === 7)).toBe(true)
    } finally {
      closeSync(writer)
      closeSync(reader)
    }
  })

  test('enlargePipe on something that is not a pipe says 0 (reads are then not paced)', () => {
    const fd = openSync(join(dir, 'plain-file'), 'w')
    try {
      expect(enlargePipe(fd)).toBe(0)
    } finally {
      closeSync(fd)
    }
  })
})
