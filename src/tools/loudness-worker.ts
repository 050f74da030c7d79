/**
 * The measuring worker (loudness.ts `startMeasuring`): reads the FIFO the
 * conversion's ffmpeg writes its measuring branch into, with blocking reads
 * (one per 32 KB write, off the server's event loop) straight into the
 * meter's memory, and
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
    for (;;) {
      const into = reader.target()
      const n = readSync(fd, into, 0, into.length, null)
      if (n <= 0) break
      reader.filled(n)
    }
    self.postMessage(reader.result())
  } catch {
    self.postMessage(null)
  } finally {
    if (fd >= 0) closeSync(fd)
  }
}
