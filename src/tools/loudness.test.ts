import { describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ffmpeg } from '../../tests/support/media.ts'
import { convertToMp3, mp3Args } from './ffmpeg.ts'
import { replayGainTags, startMeasuring, type Loudness } from './loudness.ts'
import { runProcess } from '../lib/process.ts'
import { LoudnessReader } from './wav-loudness.ts'

// The loudness measured in the conversion pass (FIFO + worker + BS.1770 in
// the app, loudness.ts) against ffmpeg's own ebur128 filter run on the same
// file, for media made here: integrated loudness within 0.05 LU, and the
// sample peak equal to the largest decoded sample (astats on the same float
// samples) within float rounding, and to ebur128's within its printed digits.

const FFMPEG = process.env.FFMPEG_PATH || '/usr/bin/ffmpeg'
const tool = { path: FFMPEG, source: 'config' as const, version: null }
const dir = mkdtempSync(join(tmpdir(), 'tunefeed-rg-'))

interface Reference {
  /** ebur128's integrated loudness (3 decimals), −70 when no block passed the gate. */
  integrated: number
  /** ebur128's sample peak, linear (3 decimals). */
  ebur128Peak: number
  /** astats' peak of the decoded float samples, dBFS (6 decimals). */
  peakDb: number
}

async function reference(file: string): Promise<Reference> {
  const run = async (filter: string) => {
    const proc = Bun.spawn([FFMPEG, '-hide_banner', '-nostdin', '-i', file, '-map', '0:a:0', '-af', filter, '-f', 'null', '-'], { stdout: 'ignore', stderr: 'pipe' })
    const [err] = await Promise.all([new Response(proc.stderr).text(), proc.exited])
    return err
  }
  const printed = `${file}.r128.txt`
  await run(`ebur128=peak=sample:metadata=1,ametadata=mode=print:file=${printed}`)
  const r128 = await Bun.file(printed).text()
  const last = (key: string) => Number([...r128.matchAll(new RegExp(`lavfi\\.r128\\.${key}=(-?[\\d.]+)`, 'g'))].at(-1)?.[1] ?? Number.NaN)
  const stats = await run('aformat=sample_fmts=flt,astats=measure_perchannel=none:measure_overall=Peak_level')
  const peakDb = /Peak level dB: (-?[\d.]+|-inf)/.exec(stats)?.[1]
  return { integrated: last('I'), ebur128Peak: last('sample_peak'), peakDb: peakDb === '-inf' ? -Infinity : Number(peakDb) }
}

async function measure(name: string, source: string[]): Promise<{ loudness: Loudness | null; ref: Reference }> {
  const file = join(dir, name)
  await ffmpeg([...source, file])
  const loudness = await convertToMp3(tool, file, join(dir, `${name}.mp3`), AbortSignal.timeout(60_000), () => {})
  return { loudness, ref: await reference(file) }
}

function expectSameAsEbur128({ loudness, ref }: { loudness: Loudness | null; ref: Reference }) {
  expect(loudness).not.toBeNull()
  expect(Math.abs(loudness!.integrated - ref.integrated)).toBeLessThanOrEqual(0.05)
  expect(Math.abs(loudness!.peakDb - ref.peakDb)).toBeLessThanOrEqual(1e-5)
  expect(Math.abs(10 ** (loudness!.peakDb / 20) - ref.ebur128Peak)).toBeLessThanOrEqual(0.0005)
}

describe('ReplayGain 2.0 measured in the conversion pass, as ffmpeg ebur128 measures it', () => {
  test('the bench-like source: a 440 Hz tone plus white noise, 48 kHz stereo AAC next to a video stream', async () => {
    const m = await measure('bench.mp4', [
      '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=5:duration=12',
      '-f', 'lavfi', '-i', 'sine=frequency=440:duration=12',
      '-f', 'lavfi', '-i', 'anoisesrc=d=12:a=0.05',
      '-filter_complex', '[1:a][2:a]amix=inputs=2,aformat=channel_layouts=stereo[a]',
      '-map', '0:v', '-map', '[a]', '-c:v', 'mpeg4', '-c:a', 'aac', '-b:a', '192k', '-shortest',
    ])
    expectSameAsEbur128(m)
    expect(m.loudness!.integrated).toBeCloseTo(-27, 0)
  }, 60_000)

  test('a quiet passage between loud ones: the relative gate leaves it out', async () => {
    // 4 s at about -12 dBFS, 8 s at about -45 dBFS, 4 s at -12 dBFS (uncorrelated stereo pink noise)
    const noise = (seed: number, quiet: boolean) => `anoisesrc=d=16:a=0.5:c=pink:r=48000:s=${seed},volume='if(between(t,4,12),${quiet ? 0.0056 : 0.5},0.5)':eval=frame`
    const source = (quiet: boolean) => ['-f', 'lavfi', '-i', noise(3, quiet), '-f', 'lavfi', '-i', noise(7, quiet), '-filter_complex', '[0:a][1:a]join=inputs=2:channel_layout=stereo[a]', '-map', '[a]', '-c:a', 'pcm_f32le']
    const gated = await measure('gated.wav', source(true))
    expectSameAsEbur128(gated)
    // the same noise loud all along reads the same: the quiet half, about 33 LU down, is gated out
    // (ungated, half the blocks that quiet would pull the mean energy down by about 3 LU)
    const loud = await measure('loud.wav', source(false))
    expect(Math.abs(gated.loudness!.integrated - loud.loudness!.integrated)).toBeLessThan(0.3)
  }, 60_000)

  test('mono (one channel, weight 1 as ebur128 gives it)', async () => {
    expectSameAsEbur128(
      await measure('mono.wav', ['-f', 'lavfi', '-i', 'sine=frequency=1000:sample_rate=48000:duration=6,volume=0.3', '-f', 'lavfi', '-i', 'anoisesrc=d=6:a=0.02', '-filter_complex', '[0:a][1:a]amix=inputs=2[a]', '-map', '[a]', '-ac', '1', '-c:a', 'pcm_s16le']),
    )
  }, 60_000)

  test('44.1 kHz: K-weighting for that rate (ebur128 resamples to 48 kHz; the loudness agrees)', async () => {
    expectSameAsEbur128(
      await measure('cd.flac', ['-f', 'lavfi', '-i', 'sine=frequency=997:sample_rate=44100:duration=6', '-f', 'lavfi', '-i', 'anoisesrc=d=6:a=0.05:r=44100:c=brown', '-filter_complex', '[0:a][1:a]amerge=inputs=2[a]', '-map', '[a]', '-c:a', 'flac']),
    )
  }, 60_000)

  test('5.1: LFE left out, surround channels weighted 1.41', async () => {
    const channels = ['1', '0.5', '0.7', '1', '0.3', '0.6'].map((v, i) => `[s${i}]volume=${v},adelay=${i * 3}[c${i}]`)
    expectSameAsEbur128(
      await measure('surround.wav', [
        '-f', 'lavfi', '-i', 'anoisesrc=d=6:a=0.2:r=48000:c=pink',
        '-filter_complex', `[0:a]asplit=6${[0, 1, 2, 3, 4, 5].map((i) => `[s${i}]`).join('')};${channels.join(';')};${[0, 1, 2, 3, 4, 5].map((i) => `[c${i}]`).join('')}join=inputs=6:channel_layout=5.1[o]`,
        '-map', '[o]', '-c:a', 'pcm_f32le',
      ]),
    )
  }, 60_000)

  test('shorter than one 400 ms block: no loudness, as ebur128 gives none', async () => {
    const m = await measure('short.wav', ['-f', 'lavfi', '-i', 'sine=frequency=1000:sample_rate=48000:duration=0.3', '-ac', '2', '-c:a', 'pcm_s16le'])
    expect(m.ref.integrated).toBe(-70)
    expect(m.loudness).toBeNull()
  }, 60_000)

  test('silence: no loudness, so no gain (nothing to normalise)', async () => {
    const m = await measure('silence.wav', ['-f', 'lavfi', '-i', 'anullsrc=r=44100:cl=stereo', '-t', '3', '-c:a', 'pcm_s16le'])
    expect(m.ref.integrated).toBe(-70)
    expect(m.loudness).toBeNull()
  }, 60_000)

  test('a 1 kHz stereo sine at -20 dBFS reads -20 LUFS: gain +2.00 dB against -18 LUFS, peak 0.1', async () => {
    const { loudness } = await measure('tone.wav', ['-f', 'lavfi', '-i', 'aevalsrc=0.1*sin(2*PI*1000*t)|0.1*sin(2*PI*1000*t):s=48000:d=10', '-c:a', 'pcm_s16le'])
    expect(Math.abs(loudness!.integrated - -20)).toBeLessThanOrEqual(0.05)
    const tags = replayGainTags(loudness!)
    expect(Number.parseFloat(tags.REPLAYGAIN_TRACK_GAIN)).toBeCloseTo(2, 1)
    expect(tags.REPLAYGAIN_TRACK_GAIN).toMatch(/^\+\d+\.\d\d dB$/)
    expect(Number(tags.REPLAYGAIN_TRACK_PEAK)).toBeCloseTo(0.1, 4)
  }, 60_000)

  test('paced reads, fast and slow writers: the worker measures what reading the whole file at once measures', async () => {
    // 60 s of 48 kHz stereo float (23 MB): written in 1 MB blocks as fast as dd goes (reads find
    // the enlarged pipe full and follow each other without sleeps), then in 32 KB writes with a
    // 3 ms pause every 64 KB, about 20 MB/s as a conversion writes (reads find the pipe less than
    // half full and sleep before the next)
    const wav = join(dir, 'paced.wav')
    await ffmpeg(['-f', 'lavfi', '-i', 'anoisesrc=d=60:a=0.3:c=pink:r=48000', '-ac', '2', '-c:a', 'pcm_f32le', '-f', 'wav', wav])
    const whole = new LoudnessReader()
    whole.chunk(new Uint8Array(readFileSync(wav)))
    const expected = whole.result()
    expect(expected).not.toBeNull()
    const fast = (await startMeasuring())!
    expect((await runProcess(['dd', `if=${wav}`, `of=${fast.path}`, 'bs=1M', 'status=none'])).code).toBe(0)
    expect(await fast.finish()).toEqual(expected)
    const slow = (await startMeasuring())!
    const bytes = readFileSync(wav)
    const writer = await open(slow.path, 'w')
    for (let at = 0; at < bytes.length; at += 32 * 1024) {
      await writer.write(bytes.subarray(at, at + 32 * 1024))
      if (at % (64 * 1024) === 0) await Bun.sleep(3)
    }
    await writer.close()
    expect(await slow.finish()).toEqual(expected)
  }, 60_000)

  test('a conversion that fails before writing releases the measuring worker and removes its FIFO', async () => {
    const before = readdirSync(tmpdir()).filter((n) => n.startsWith('tunefeed-loudness-')).length
    const started = performance.now()
    await expect(convertToMp3(tool, join(dir, 'missing.wav'), join(dir, 'missing.mp3'), AbortSignal.timeout(30_000), () => {})).rejects.toThrow()
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(readdirSync(tmpdir()).filter((n) => n.startsWith('tunefeed-loudness-')).length).toBe(before)
    expect(existsSync(join(dir, 'missing.mp3'))).toBe(false)
  }, 30_000)

  test('a measuring worker that cannot start: the FIFO is drained, the conversion succeeds without a loudness', async () => {
    const wav = join(dir, 'drained.wav')
    await ffmpeg(['-f', 'lavfi', '-i', 'anoisesrc=d=4:a=0.3', '-ac', '2', '-c:a', 'pcm_s16le', wav])
    const measuring = (await startMeasuring(join(dir, 'no-such-worker.ts')))!
    expect(measuring).not.toBeNull()
    const out = join(dir, 'drained.mp3')
    const run = await runProcess(mp3Args(FFMPEG, wav, out, {}, measuring.path), { signal: AbortSignal.timeout(30_000) })
    expect(run.code).toBe(0)
    expect(await measuring.finish()).toBeNull()
    expect(Bun.file(out).size).toBeGreaterThan(10_000)
  }, 30_000)

  test('tags: gain with sign and two decimals, peak as a linear ratio', () => {
    expect(replayGainTags({ integrated: -9.5, peakDb: -0.3 })).toEqual({ REPLAYGAIN_TRACK_GAIN: '-8.50 dB', REPLAYGAIN_TRACK_PEAK: '0.966051' })
    expect(replayGainTags({ integrated: -23, peakDb: -Infinity })).toEqual({ REPLAYGAIN_TRACK_GAIN: '+5.00 dB', REPLAYGAIN_TRACK_PEAK: '0.000000' })
  })
})
