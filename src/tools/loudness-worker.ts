/**
 * The measuring worker (loudness.ts `startMeasuring`): reads the FIFO the
 * conversion's ffmpeg writes its measuring branch into, with blocking reads
 * into one buffer (a read per 32 KB write, off the server's event loop), and
 * answers the loudness or null. It reads to the end whatever happens, so
 * ffmpeg never waits on a full FIFO.
 */
import { closeSync, openSync, readSync } from 'node:fs'
import { LoudnessReader } from './wav-loudness.ts'

declare const self: Worker

self.onmessage = (e: MessageEvent<string>) => {
  const reader = new LoudnessReader()
  let fd = -1
  try {
    // blocks until ffmpeg opens the FIFO for writing (or loudness.ts does, when ffmpeg failed first)
    fd = openSync(e.data, 'r')
    const buffer = new Uint8Array(1 << 20)
    for (let n = readSync(fd, buffer, 0, buffer.length, null); n > 0; n = readSync(fd, buffer, 0, buffer.length, null)) reader.chunk(buffer.subarray(0, n))
    self.postMessage(reader.result())
  } catch {
    self.postMessage(null)
  } finally {
    if (fd >= 0) closeSync(fd)
  }
}
