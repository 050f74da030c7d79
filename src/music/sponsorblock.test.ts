import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseFile } from 'music-metadata'
import { makeTone } from '../../tests/support/media.ts'
import { startMusicServices, type MusicServices } from '../../tests/support/music-services.ts'
import { parseAllowList } from '../lib/url-guard.ts'
import { clipSegments, cutNotice, fetchSegments, mergeSegments, SponsorBlockUnavailable, youtubeVideoId } from './sponsorblock.ts'
import { convertToMp3 } from '../tools/ffmpeg.ts'

// SponsorBlock's hash-prefix API against the local stand-in, and the cut made
// by the conversion pass with real ffmpeg.
let services: MusicServices
const allow = parseAllowList('127.0.0.1')
const ffmpegTool = { path: process.env.FFMPEG_PATH || '/usr/bin/ffmpeg', source: 'config' as const, version: null }

beforeAll(async () => {
  services = await startMusicServices()
})
afterAll(() => services?.stop())

describe('youtubeVideoId', () => {
  test.each([
    ['https://www.youtube.com/watch?v=dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://youtube.com/watch?v=dQw4w9WgXcQ&list=PL123', 'dQw4w9WgXcQ'],
    ['https://music.youtube.com/watch?v=dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://m.youtube.com/watch?v=dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://youtu.be/dQw4w9WgXcQ?t=10', 'dQw4w9WgXcQ'],
    ['https://www.youtube.com/shorts/dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
    ['https://www.youtube.com/playlist?list=PL123', null],
    ['https://vimeo.com/123456', null],
    ['https://www.youtube.com.evil.example/watch?v=dQw4w9WgXcQ', null],
    ['not a url', null],
  ])('%s', (url, id) => expect(youtubeVideoId(url)).toBe(id))
})

describe('fetchSegments (hash-prefix API)', () => {
  test('asks by a 4-hex prefix of the id, never the id, and keeps only this video and category', async () => {
    services.segments.set('aaaaaaaaaaa', [
      { category: 'music_offtopic', segment: [1, 2] },
      { category: 'sponsor', segment: [5, 6] },
    ])
    const segments = await fetchSegments(services.sbUrl, 'dQw4w9WgXcQ', ['music_offtopic'], allow, AbortSignal.timeout(5000))
    expect(segments).toEqual([
      { category: 'music_offtopic', start: 0, end: 12.345 },
      { category: 'music_offtopic', start: 203.5, end: 212.061 },
    ])
    const asked = services.sbRequests.at(-1)!
    expect(asked).toStartWith('/sb/api/skipSegments/')
    expect(asked).not.toContain('dQw4w9WgXcQ')
    expect(/skipSegments\/([0-9a-f]+)/.exec(asked)![1]).toHaveLength(4)
    expect(new URL(asked, 'http://x').searchParams.get('categories')).toBe('["music_offtopic"]')
  })

  test('a video without segments: none (the API answers 404)', async () => {
    expect(await fetchSegments(services.sbUrl, 'zzzzzzzzzzz', ['music_offtopic'], allow, AbortSignal.timeout(5000))).toEqual([])
  })

  test('an outage is its own error (the job converts uncut and says so)', async () => {
    services.sponsorBlockDown = true
    try {
      await expect(fetchSegments(services.sbUrl, 'dQw4w9WgXcQ', ['music_offtopic'], allow, AbortSignal.timeout(5000))).rejects.toBeInstanceOf(
        SponsorBlockUnavailable,
      )
    } finally {
      services.sponsorBlockDown = false
    }
    // nobody listening at all
    await expect(fetchSegments('http://127.0.0.1:9', 'dQw4w9WgXcQ', ['music_offtopic'], allow, AbortSignal.timeout(5000))).rejects.toBeInstanceOf(
      SponsorBlockUnavailable,
    )
  })

  test('overlapping segments are merged', () => {
    expect(
      mergeSegments([
        { category: 'a', start: 5, end: 8 },
        { category: 'a', start: 0, end: 2 },
        { category: 'a', start: 7, end: 9 },
      ]),
    ).toEqual([
      { category: 'a', start: 0, end: 2 },
      { category: 'a', start: 5, end: 9 },
    ])
  })
})

test('segments are clipped to the download: cut short at its end, dropped past it, kept when its length is unknown', () => {
  const segments = [
    { category: 'music_offtopic', start: -1, end: 3 },
    { category: 'music_offtopic', start: 17, end: 30 },
    { category: 'music_offtopic', start: 40, end: 45 },
  ]
  expect(clipSegments(segments, 20.05)).toEqual([
    { category: 'music_offtopic', start: 0, end: 3 },
    { category: 'music_offtopic', start: 17, end: 20.05 },
  ])
  expect(clipSegments(segments, null)).toEqual(segments)
  expect(clipSegments(segments, 0)).toEqual([])
})

test('the notice names how many parts and how long, rounded to the second', () => {
  expect(cutNotice([{ start: 4, end: 9 }])).toBe('Removed 1 non-music part (0:05 in all).')
  expect(
    cutNotice([
      { start: 0, end: 12.345 },
      { start: 203.5, end: 212.061 },
    ]),
  ).toBe('Removed 2 non-music parts (0:21 in all).')
  expect(cutNotice([{ start: 10, end: 85.4 }])).toBe('Removed 1 non-music part (1:15 in all).')
})

describe('the cut', () => {
  test('removed segments shorten the file by their length (±0.5 s)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tunefeed-sb-'))
    const source = join(dir, 'source.mp3')
    await makeTone(source, 20)
    const whole = join(dir, 'whole.mp3')
    const cut = join(dir, 'cut.mp3')
    await convertToMp3(ffmpegTool, source, whole, AbortSignal.timeout(30_000), () => {})
    const loudness = await convertToMp3(ffmpegTool, source, cut, AbortSignal.timeout(30_000), () => {}, {
      remove: [
        [2, 5],
        [12, 14.5],
      ],
    })
    expect(loudness).not.toBeNull()
    const duration = async (p: string) => (await parseFile(p, { duration: true })).format.duration!
    const [full, shortened] = await Promise.all([duration(whole), duration(cut)])
    expect(Math.abs(full - 20)).toBeLessThanOrEqual(0.5)
    expect(Math.abs(full - shortened - 5.5)).toBeLessThanOrEqual(0.5)
  })
})
