/**
 * The measuring worker (loudness.ts `startMeasuring`): reads the FIFO the
 * conversion's ffmpeg writes its measuring branch into, with blocking reads
 * (off the server's event loop) straight into the meter's memory, and
 * answers the loudness or null. It reads to the end whatever happens.
 *
 * The reads are paced (docs/decisions/135-replaygain-reads-paced.md): with
 * the pipe enlarged to 1 MB, a read that found it less than half full is
 * followed by a 10 ms sleep, so a 3-minute track is read in about 170 reads
 * of some 400 KB instead of 2,100 wake-ups, one per 32 KB write, on both
 * sides. ffmpeg never waits on a full pipe because of it: a writer fast
 * enough to fill half the pipe in 10 ms finds the reader reading without
 * sleeps. A pipe that could not be enlarged is read without pacing.
 */
import { closeSync, openSync, readSync } from 'node:fs'
import { enlargePipe } from './fifo.ts'
import { LoudnessReader } from './wav-loudness.ts'

const PACE_MS = 10

declare const self: Worker

self.onmessage = (e: MessageEvent<string>) => {
  const reader = new LoudnessReader()
  let fd = -1
  try {
    // blocks until ffmpeg opens the FIFO for writing (or loudness.ts does, when ffmpeg failed first)
    fd = openSync(e.data, 'r')
    const pipeBytes = enlargePipe(fd)
    for (;;) {
      const into = reader.target()
      const n = readSync(fd, into, 0, into.length, null)
      if (n <= 0) break
      reader.filled(n)
      if (n < pipeBytes / 2) Bun.sleepSync(PACE_MS)
    }
    self.postMessage(reader.result())
  } catch {
    self.postMessage(null)
  } finally {
    if (fd >= 0) closeSync(fd)
  }
}
