/**
 * ReplayGain 2.0 from the conversion pass (docs/decisions/127-replaygain-in-the-app.md):
 * the decoded audio is split (asplit) inside the conversion's ffmpeg; one
 * branch is encoded to MP3, the other leaves the same process as a 32-bit
 * float WAV written into a FIFO, so the audio is decoded once. A worker
 * thread (loudness-worker.ts) reads the FIFO and measures it: EBU R128
 * integrated loudness per ITU-R BS.1770-4 and the sample peak (bs1770.ts).
 * Gain is against −18 LUFS (ReplayGain 2.0's reference).
 *
 * A measurement that cannot start or fails gives no ReplayGain, never a
 * failed conversion.
 */
import { closeSync, constants, createReadStream, mkdtempSync, openSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { embedded } from '../embedded.ts'
import { makeFifo } from './fifo.ts'

export interface Loudness {
  /** Integrated loudness, LUFS. */
  integrated: number
  /** Sample peak, dBFS. */
  peakDb: number
}

export const REFERENCE_LUFS = -18

/** `[<input>]...` → `[out]` plus `[measure]`, the branch `measureOutput` writes (for `-filter_complex`). */
export function measuringGraph(input: string, chain: string[] = []): string {
  const pre = chain.length ? `${chain.join(',')},` : ''
  return `[${input}]${pre}asplit=2[out][measure]`
}

/** The conversion's second output: the measuring branch as a float WAV into `path`, in 32 KB writes (not one per packet). */
export function measureOutput(path: string): string[] {
  return ['-map', '[measure]', '-map_metadata', '-1', '-flush_packets', '0', '-c:a', 'pcm_f32le', '-f', 'wav', path]
}

/** How long the worker may take to finish once ffmpeg has exited (it only reads what is left in the FIFO). */
const FINISH_MS = 10_000
/** Idle measuring workers kept for the next conversions (starting one costs about 8 ms of CPU). */
const POOL = 4
const idle: Worker[] = []

/** The worker's module: next to this file from source; in the compiled binary, the entry point scripts/build-binary.ts adds. */
const workerModule = () => (embedded() ? './src/tools/loudness-worker.ts' : new URL('./loudness-worker.ts', import.meta.url).href)

export interface Measuring {
  /** The FIFO ffmpeg writes the measuring branch into. */
  path: string
  /** Once ffmpeg has exited (however): the loudness, or null; removes the FIFO. */
  finish(): Promise<Loudness | null>
}

/** A FIFO and a worker reading it; null (no measurement) when either cannot be made. `module` only for tests. */
export async function startMeasuring(module?: string): Promise<Measuring | null> {
  let dir: string | undefined
  const cleanup = () => dir && rmSync(dir, { recursive: true, force: true })
  let path: string
  let worker: Worker
  try {
    dir = mkdtempSync(join(tmpdir(), 'tunefeed-loudness-'))
    path = join(dir, 'measure.wav')
    await makeFifo(path)
    worker = module ? new Worker(module) : (idle.pop() ?? new Worker(workerModule()))
    // an idle worker must not keep the process alive (Bun's Worker has unref, as Node's)
    ;(worker as Worker & { unref(): void }).unref()
  } catch {
    cleanup()
    return null
  }
  let done = false
  let failed = false
  const result = new Promise<Loudness | null>((resolve) => {
    worker.onmessage = (e: MessageEvent<Loudness | null>) => resolve(e.data)
    worker.onerror = () => {
      // a worker that could not start (or died) reads nothing: ffmpeg would wait on the FIFO
      // forever, so it is drained here instead and the track just gets no ReplayGain
      failed = true
      drain(path).then(() => resolve(null))
    }
  }).finally(() => (done = true))
  worker.postMessage(path)
  return {
    path,
    async finish() {
      const deadline = Date.now() + FINISH_MS
      // A worker still waiting in open() (ffmpeg failed before opening the FIFO) gets a writer that
      // closes at once, so it reads the end; ENXIO means no reader yet (or any more): try again.
      while (!done && Date.now() < deadline) {
        try {
          closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK))
          break
        } catch {
          await Bun.sleep(5)
        }
      }
      const answered = await Promise.race([result.then(() => true), Bun.sleep(Math.max(0, deadline - Date.now())).then(() => false)])
      const loudness = answered ? await result : null
      // a worker that answered waits for its next FIFO; one that did not (or errored) is ended
      if (answered && !failed && idle.length < POOL) idle.push(worker)
      else worker.terminate()
      cleanup()
      return loudness
    },
  }
}

/** Reads a FIFO to its end, discarding it. */
function drain(path: string): Promise<void> {
  return new Promise((resolve) => {
    const stream = createReadStream(path, { highWaterMark: 1 << 20 })
    stream.on('data', () => {})
    stream.on('close', resolve)
    stream.on('error', () => resolve())
  })
}

/** The two TXXX values: gain "−3.20 dB" (against −18 LUFS), peak as a linear ratio "0.891251". */
export function replayGainTags(l: Loudness): { REPLAYGAIN_TRACK_GAIN: string; REPLAYGAIN_TRACK_PEAK: string } {
  const gain = REFERENCE_LUFS - l.integrated
  const peak = Number.isFinite(l.peakDb) ? 10 ** (l.peakDb / 20) : 0
  return {
    REPLAYGAIN_TRACK_GAIN: `${gain >= 0 ? '+' : ''}${gain.toFixed(2)} dB`,
    REPLAYGAIN_TRACK_PEAK: peak.toFixed(6),
  }
}
