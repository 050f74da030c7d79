import { describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ffmpeg } from '../../tests/support/media.ts'
import { assembleKernel } from '../../scripts/build-wasm.ts'
import { KERNEL_WASM } from './bs1770-wasm.ts'
import { Bs1770Meter, channelWeights, kWeighting } from './bs1770.ts'
import { LoudnessReader } from './wav-loudness.ts'

const dir = mkdtempSync(join(tmpdir(), 'tunefeed-bs1770-'))

describe('BS.1770-4 meter', () => {
  test('K-weighting at 48 kHz is the table of ITU-R BS.1770-4', () => {
    const { pre, rlb } = kWeighting(48000)
    const table = { b0: 1.53512485958697, b1: -2.69169618940638, b2: 1.19839281085285, a1: -1.69065929318241, a2: 0.73248077421585 }
    for (const [k, v] of Object.entries(table)) expect(Math.abs(pre[k as keyof typeof table] - v)).toBeLessThan(1e-12)
    expect(Math.abs(rlb.a1 - -1.99004745483398)).toBeLessThan(1e-12)
    expect(Math.abs(rlb.a2 - 0.99007225036621)).toBeLessThan(1e-12)
    expect([rlb.b0, rlb.b1, rlb.b2]).toEqual([1, -2, 1])
  })

  test('the committed WebAssembly kernel is bs1770.wat assembled (bun scripts/build-wasm.ts)', async () => {
    expect(await assembleKernel()).toBe(KERNEL_WASM)
  })

  test('channel weights from the WAVE channel mask: LFE 0, back and side 1.41, others 1', () => {
    expect(channelWeights(1, 0x4)).toEqual([1])
    expect(channelWeights(2, 0x3)).toEqual([1, 1])
    expect(channelWeights(6, 0x3f)).toEqual([1, 1, 1, 0, 1.41, 1.41]) // 5.1 (back)
    expect(channelWeights(6, 0x60f)).toEqual([1, 1, 1, 0, 1.41, 1.41]) // 5.1 (side)
    expect(channelWeights(3, 0)).toEqual([1, 1, 1]) // no layout
  })

  test('gates: a block under -70 LUFS counts for nothing; fewer than 4 sub-blocks give no block', () => {
    const tone = (amplitude: number, seconds: number) => {
      const x = new Float32Array(48000 * seconds * 2)
      for (let i = 0; i < x.length / 2; i++) x[2 * i] = x[2 * i + 1] = amplitude * Math.sin((2 * Math.PI * 1000 * i) / 48000)
      return x
    }
    const quiet = new Bs1770Meter(48000, 2)
    quiet.push(tone(0.0001, 2)) // about -80 LUFS
    expect(quiet.integrated()).toBe(-Infinity)
    expect(quiet.samplePeak()).toBeCloseTo(0.0001, 6)
    const short = new Bs1770Meter(48000, 2)
    short.push(tone(0.5, 0.3))
    expect(short.integrated()).toBe(-Infinity)
    const alone = new Bs1770Meter(48000, 2)
    alone.push(tone(0.1, 2)) // 20 sub-blocks: 17 blocks of the same energy E
    expect(alone.integrated()).toBeCloseTo(-20, 1)
    const then = new Bs1770Meter(48000, 2)
    then.push(tone(0.1, 2))
    then.push(tone(0.0001, 2))
    // the quiet blocks fall under -70; the three blocks across the change (3/4, 2/4, 1/4 of E) pass
    // the relative gate (the mean's -10 LU): 18.5 E over 20 blocks
    expect(then.integrated()).toBeCloseTo(alone.integrated() + 10 * Math.log10(18.5 / 20), 3)
  })
})

describe('the WAV stream reader', () => {
  test('the same loudness whatever the chunks (split headers, split frames); a LIST chunk before the data is skipped', async () => {
    const wav = join(dir, 'stream.wav')
    await ffmpeg(['-f', 'lavfi', '-i', 'anoisesrc=d=3:a=0.3:r=44100:c=pink', '-ac', '2', '-metadata', 'title=skipped', '-c:a', 'pcm_f32le', '-f', 'wav', wav])
    const bytes = new Uint8Array(readFileSync(wav))
    expect(new TextDecoder().decode(bytes)).toContain('LIST')
    const read = (size: number) => {
      const reader = new LoudnessReader()
      // one buffer reused for every chunk, as the worker does
      const buffer = new Uint8Array(size)
      for (let at = 0; at < bytes.length; at += size) {
        const chunk = bytes.subarray(at, at + size)
        buffer.set(chunk)
        reader.chunk(buffer.subarray(0, chunk.length))
        buffer.fill(0xff)
      }
      return reader.result()
    }
    const whole = read(bytes.length)
    expect(whole).not.toBeNull()
    for (const size of [1, 3, 7, 4097, 65536]) expect(read(size)).toEqual(whole)
  })

  test('not 32-bit float WAV, or not WAV at all: no loudness (the conversion goes on)', async () => {
    const wav = join(dir, 's16.wav')
    await ffmpeg(['-f', 'lavfi', '-i', 'anoisesrc=d=1:a=0.3', '-c:a', 'pcm_s16le', '-f', 'wav', wav])
    const s16 = new LoudnessReader()
    s16.chunk(new Uint8Array(readFileSync(wav)))
    expect(s16.result()).toBeNull()
    const junk = new LoudnessReader()
    junk.chunk(new TextEncoder().encode('ID3 this is an mp3, not a wav stream'))
    expect(junk.result()).toBeNull()
  })
})
