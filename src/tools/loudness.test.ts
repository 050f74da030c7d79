import { describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ffmpeg } from '../../tests/support/media.ts'
import { convertToMp3 } from './ffmpeg.ts'
import { LoudnessReader, replayGainTags } from './loudness.ts'

const tool = { path: process.env.FFMPEG_PATH || '/usr/bin/ffmpeg', source: 'config' as const, version: null }

describe('ReplayGain 2.0 measured in the conversion pass', () => {
  test('a 1 kHz stereo sine at -20 dBFS reads -20 LUFS: gain +2.00 dB against -18 LUFS, peak 0.1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tunefeed-rg-'))
    const wav = join(dir, 'tone.wav')
    await ffmpeg(['-f', 'lavfi', '-i', 'aevalsrc=0.1*sin(2*PI*1000*t)|0.1*sin(2*PI*1000*t):s=48000:d=10', '-c:a', 'pcm_s16le', wav])
    const loudness = await convertToMp3(tool, wav, join(dir, 'out.mp3'), AbortSignal.timeout(30_000), () => {})
    expect(loudness).not.toBeNull()
    expect(Math.abs(loudness!.integrated - -20)).toBeLessThanOrEqual(0.2)
    const tags = replayGainTags(loudness!)
    expect(Number.parseFloat(tags.REPLAYGAIN_TRACK_GAIN)).toBeCloseTo(2, 0)
    expect(tags.REPLAYGAIN_TRACK_GAIN).toMatch(/^\+\d+\.\d\d dB$/)
    expect(Number(tags.REPLAYGAIN_TRACK_PEAK)).toBeCloseTo(0.1, 2)
  })

  test('silence gives no gain (nothing to normalise)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tunefeed-rg-'))
    const wav = join(dir, 'silence.wav')
    await ffmpeg(['-f', 'lavfi', '-i', 'anullsrc=r=44100:cl=stereo', '-t', '3', '-c:a', 'pcm_s16le', wav])
    expect(await convertToMp3(tool, wav, join(dir, 'out.mp3'), AbortSignal.timeout(30_000), () => {})).toBeNull()
  })

  test('the reader takes the last summary (a graph configured twice prints an empty one first)', () => {
    const reader = new LoudnessReader()
    const summary = (i: string, peak: string) => [
      '[Parsed_ebur128_1 @ 0x1] Summary:',
      '  Integrated loudness:',
      `    I:         ${i} LUFS`,
      '    Threshold: -31.8 LUFS',
      '  Sample peak:',
      `    Peak:      ${peak} dBFS`,
    ]
    for (const line of [...summary('-70.0', '-inf'), '[Parsed_ebur128_1 @ 0x1] t: 0.1 M: -120 S: -120 I: -70.0 LUFS', ...summary('-9.5', '-0.3')]) reader.line(line)
    expect(reader.result()).toEqual({ integrated: -9.5, peakDb: -0.3 })
    expect(replayGainTags({ integrated: -9.5, peakDb: -0.3 })).toEqual({ REPLAYGAIN_TRACK_GAIN: '-8.50 dB', REPLAYGAIN_TRACK_PEAK: '0.966051' })
  })
})
