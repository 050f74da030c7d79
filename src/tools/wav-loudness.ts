/**
 * The measuring branch's WAV stream (32-bit float, as ffmpeg writes it on a
 * pipe: sizes unknown, read to the end) into a BS.1770 meter (bs1770.ts).
 * Runs in the measuring worker (loudness-worker.ts).
 */
import { Bs1770Meter, channelWeights } from './bs1770.ts'
import type { Loudness } from './loudness.ts'

/**
 * Reads the measuring branch's WAV stream chunk by chunk. Anything it cannot
 * read (another format, a truncated header) makes `result()` null: a failed
 * measurement never fails the conversion, the track just gets no ReplayGain.
 */
export class LoudnessReader {
  private meter: Bs1770Meter | null = null
  private failed = false
  private head: Uint8Array = new Uint8Array(0)
  private frameBytes = 0
  private carry: Uint8Array = new Uint8Array(0)

  chunk(bytes: Uint8Array) {
    if (this.failed) return
    try {
      if (!this.meter) {
        const all = concat(this.head, bytes)
        const start = this.header(all)
        if (start < 0) {
          if (all.length > 1 << 20) throw new Error('no WAV data in the first MB')
          this.head = all
          return
        }
        this.head = new Uint8Array(0)
        bytes = all.subarray(start)
      }
      this.samples(bytes)
    } catch {
      this.failed = true
    }
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

  /** Whole frames are copied into the meter's memory and measured; a split frame waits for the next chunk. */
  private samples(bytes: Uint8Array) {
    const carried = this.carry.length
    const total = carried + bytes.length
    const whole = total - (total % this.frameBytes)
    if (!whole) {
      this.carry = concat(this.carry, bytes)
      return
    }
    const target = this.meter!.input(whole)
    target.set(this.carry)
    target.set(bytes.subarray(0, whole - carried), carried)
    this.carry = bytes.slice(whole - carried)
    this.meter!.measure(whole / this.frameBytes)
  }
}

/** A new array with both (the worker reuses its read buffer, so nothing kept may point into it). */
function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const all = new Uint8Array(a.length + b.length)
  all.set(a)
  all.set(b, a.length)
  return all
}
