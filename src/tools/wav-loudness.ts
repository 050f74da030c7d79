/**
 * The measuring branch's WAV stream (32-bit float, as ffmpeg writes it on a
 * pipe: sizes unknown, read to the end) into a BS.1770 meter (bs1770.ts).
 * Runs in the measuring worker (loudness-worker.ts).
 */
import { Bs1770Meter, channelWeights } from './bs1770.ts'
import { PIPE_BYTES } from './fifo.ts'
import type { Loudness } from './loudness.ts'

/** The most one read asks for: what the enlarged pipe holds (a read gives at most that). */
const READ_BYTES = PIPE_BYTES

/**
 * Reads the measuring branch's WAV stream chunk by chunk. Anything it cannot
 * read (another format, a truncated header) makes `result()` null: a failed
 * measurement never fails the conversion, the track just gets no ReplayGain.
 */
export class LoudnessReader {
  private meter: Bs1770Meter | null = null
  private failed = false
  /** Where reads go until the header is known. */
  private readonly spare = new Uint8Array(64 * 1024)
  private head: Uint8Array = new Uint8Array(0)
  private frameBytes = 0
  /** The bytes of a frame split by a read, put back in front of the next one. */
  private carry: Uint8Array = new Uint8Array(0)

  /**
   * Where the next read should go: once the header is known, straight into
   * the meter's memory after the carried bytes (samples are never copied).
   */
  target(): Uint8Array {
    if (!this.meter) return this.spare
    const into = this.meter.input(this.carry.length + READ_BYTES)
    into.set(this.carry)
    return into.subarray(this.carry.length)
  }

  /** `n` bytes were read into `target()`. */
  filled(n: number) {
    if (this.failed) return
    try {
      if (this.meter) return this.measure(n)
      const all = concat(this.head, this.spare.subarray(0, n))
      const start = this.header(all)
      if (start < 0) {
        if (all.length > 1 << 20) throw new Error('no WAV data in the first MB')
        this.head = all
        return
      }
      this.head = new Uint8Array(0)
      this.chunk(all.subarray(start))
    } catch {
      this.failed = true
    }
  }

  /** Bytes from elsewhere, any size (tests): through `target` and `filled`. */
  chunk(bytes: Uint8Array) {
    for (let at = 0; at < bytes.length && !this.failed; ) {
      const into = this.target()
      const n = Math.min(into.length, bytes.length - at)
      into.set(bytes.subarray(at, at + n))
      at += n
      this.filled(n)
    }
  }

  /** Measures the whole frames now in the meter's memory; a split frame is carried to the next read. */
  private measure(n: number) {
    const total = this.carry.length + n
    const whole = total - (total % this.frameBytes)
    const input = this.meter!.input(total)
    if (whole) this.meter!.measure(whole / this.frameBytes)
    this.carry = input.slice(whole, total)
  }

  /** Null when the stream could not be read, or was too short or silent to give a gain. */
  result(): Loudness | null {
    if (this.failed || !this.meter) return null
    const integrated = this.meter.integrated()
    if (!Number.isFinite(integrated) || integrated <= -70) return null
    return { integrated, peakDb: 20 * Math.log10(this.meter.samplePeak()) }
  }

  /** Sets up the meter from the WAV header; the offset of the first sample, or -1 while the header is incomplete. */
  private header(b: Uint8Array): number {
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength)
    const tag = (at: number) => String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!)
    if (b.length < 12) return -1
    if (tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new Error('not a WAV stream')
    let format: { channels: number; rate: number; mask: number } | null = null
    for (let at = 12; at + 8 <= b.length; ) {
      const id = tag(at)
      const size = view.getUint32(at + 4, true)
      if (id === 'data') {
        if (!format?.channels || !format.rate) throw new Error('WAV data before its format')
        this.meter = new Bs1770Meter(format.rate, format.channels, channelWeights(format.channels, format.mask))
        this.frameBytes = 4 * format.channels
        return at + 8
      }
      if (at + 8 + size > b.length) return -1
      if (id === 'fmt ') {
        // WAVE_FORMAT_IEEE_FLOAT (3), or WAVE_FORMAT_EXTENSIBLE with its sub-format and channel mask
        const tagId = view.getUint16(at + 8, true)
        const extensible = tagId === 0xfffe && size >= 40
        const sub = extensible ? view.getUint16(at + 32, true) : tagId
        if (sub !== 3 || view.getUint16(at + 22, true) !== 32) throw new Error('not 32-bit float samples')
        format = { channels: view.getUint16(at + 10, true), rate: view.getUint32(at + 12, true), mask: extensible ? view.getUint32(at + 28, true) : 0 }
      }
      at += 8 + size + (size & 1)
    }
    return -1
  }
}

/** A new array with both (reads reuse their buffers, so nothing kept may point into one). */
function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const all = new Uint8Array(a.length + b.length)
  all.set(a)
  all.set(b, a.length)
  return all
}
