import { describe, expect, test } from 'bun:test'
import {
  CATEGORY_INFO,
  END_SLACK_SECONDS,
  estimateTime,
  LEAD_SECONDS,
  marksDescription,
  newMemory,
  POLL_MS,
  SPONSORBLOCK_CATEGORIES,
  type Segment,
  segmentMarks,
  segmentStep,
  skipNoticeText,
} from './segments.ts'

const seg = (uuid: string, actionType: string, start: number, end: number, category = 'sponsor'): Segment => ({ uuid, category, actionType, start, end })

/** Plays `segments` from `from` to `to` in POLL_MS steps as the player's poll would, seeking where told. */
function play(segments: Segment[], from: number, to: number, memory = newMemory()) {
  const seeks: { at: number; to: number; uuid: string }[] = []
  const mutes: { at: number; mute: boolean }[] = []
  let t = from
  while (t < to) {
    const step = segmentStep(segments, t, memory)
    if (step.mute !== undefined) mutes.push({ at: t, mute: step.mute })
    if (step.seekTo !== undefined) {
      seeks.push({ at: t, to: step.seekTo, uuid: step.skipped!.uuid })
      t = step.seekTo
    } else t += POLL_MS / 1000
  }
  return { seeks, mutes, memory }
}

describe('skip', () => {
  test('a skip segment is left within half a second of its start, to its end', () => {
    const { seeks } = play([seg('a', 'skip', 10, 20)], 0, 30)
    expect(seeks).toHaveLength(1)
    expect(seeks[0]!.to).toBe(20)
    expect(seeks[0]!.at).toBeGreaterThanOrEqual(10 - LEAD_SECONDS)
    expect(seeks[0]!.at).toBeLessThan(10.5)
  })

  test('once per play-through: back in it (Go back, or a seek) it plays', () => {
    const segments = [seg('a', 'skip', 10, 20)]
    const memory = newMemory()
    expect(segmentStep(segments, 10.1, memory).seekTo).toBe(20)
    // the viewer goes back to its start
    expect(segmentStep(segments, 10, memory)).toEqual({})
    expect(segmentStep(segments, 15, memory)).toEqual({})
    // a new play-through skips it again
    expect(segmentStep(segments, 10.1, newMemory()).seekTo).toBe(20)
  })

  test('entered in the middle (a resume position or a seek): skipped too', () => {
    expect(segmentStep([seg('a', 'skip', 10, 20)], 14, newMemory())).toMatchObject({ seekTo: 20, skipped: { uuid: 'a' } })
  })

  test('near its end: no seek and no notice, but it counts as skipped', () => {
    const memory = newMemory()
    expect(segmentStep([seg('a', 'skip', 10, 20)], 20 - END_SLACK_SECONDS / 2, memory)).toEqual({})
    expect(memory.skipped.has('a')).toBe(true)
  })

  test('segments back to back are one seek to the last end, named by the first', () => {
    const segments = [seg('b', 'skip', 19.8, 30, 'selfpromo'), seg('a', 'skip', 10, 20), seg('c', 'skip', 30.3, 35, 'interaction'), seg('d', 'skip', 50, 60)]
    const { seeks } = play(segments, 9, 49)
    expect(seeks.map((s) => [s.uuid, s.to])).toEqual([['a', 35]])
  })

  test('show, mute, off and broken segments are never skipped', () => {
    const segments = [seg('s', 'show', 10, 20), seg('m', 'mute', 30, 40), seg('o', 'off', 50, 60), seg('x', 'skip', 70, 70), seg('y', 'skip', Number.NaN, 80)]
    expect(play(segments, 0, 90).seeks).toEqual([])
  })

  test('a skip segment starting before the next poll: a wake-up at its start', () => {
    const memory = newMemory()
    expect(segmentStep([seg('a', 'skip', 10, 20)], 9.8, memory).wakeInMs).toBe(Math.round((10 - LEAD_SECONDS - 9.8) * 1000))
    expect(segmentStep([seg('a', 'skip', 10, 20)], 9, memory).wakeInMs).toBeUndefined()
    // at the wake-up it is skipped; none after it
    expect(segmentStep([seg('a', 'skip', 10, 20)], 10 - LEAD_SECONDS, memory)).toMatchObject({ seekTo: 20 })
    expect(segmentStep([seg('a', 'skip', 10, 20)], 9.8, memory).wakeInMs).toBeUndefined()
  })

  test('the time at a wake-up: the prediction while the reading lags, the reading after a seek', () => {
    expect(estimateTime(9.8, 9.8, 150)).toBeCloseTo(9.95)
    expect(estimateTime(9.98, 9.8, 150)).toBeCloseTo(9.98)
    expect(estimateTime(3, 9.8, 150)).toBe(3)
  })
})

describe('mute', () => {
  test('muted for the span, the sound back after', () => {
    const { mutes } = play([seg('m', 'mute', 10, 12)], 9, 15)
    expect(mutes.map((m) => m.mute)).toEqual([true, false])
    expect(mutes[0]!.at).toBeGreaterThanOrEqual(10)
    expect(mutes[0]!.at).toBeLessThan(10.25)
    expect(mutes[1]!.at).toBeGreaterThanOrEqual(12)
    expect(mutes[1]!.at).toBeLessThan(12.25)
  })

  test('a skip out of a mute span gives the sound back at once', () => {
    const memory = newMemory()
    expect(segmentStep([seg('m', 'mute', 5, 15), seg('a', 'skip', 10, 20)], 8, memory)).toEqual({ mute: true })
    expect(segmentStep([seg('m', 'mute', 5, 15), seg('a', 'skip', 10, 20)], 10, memory)).toMatchObject({ seekTo: 20, mute: false })
  })
})

describe('words and marks', () => {
  test('the notice names the category and the start', () => {
    expect(skipNoticeText(seg('a', 'skip', 42.7, 60))).toBe('Skipped a sponsor segment (0:42)')
    expect(skipNoticeText(seg('a', 'skip', 3725, 3800, 'intro'))).toBe('Skipped an intro (1:02:05)')
    expect(skipNoticeText(seg('a', 'skip', 1, 2, 'chapter'))).toBe('Skipped a segment (0:01)')
  })

  test('every category has a label, a description and a phrase', () => {
    for (const c of SPONSORBLOCK_CATEGORIES) {
      expect(CATEGORY_INFO[c].label.length).toBeGreaterThan(2)
      expect(CATEGORY_INFO[c].description).toMatch(/\.$/)
      expect(CATEGORY_INFO[c].phrase).toMatch(/^an? /)
    }
  })

  test('only show segments are marked, clipped to the duration, in percent', () => {
    const segments = [seg('s', 'show', 30, 45, 'preview'), seg('k', 'skip', 0, 10), seg('t', 'show', 90, 130, 'outro'), seg('late', 'show', 200, 210)]
    expect(segmentMarks(segments, 120).map((m) => [m.segment.uuid, m.left, m.width])).toEqual([
      ['s', 25, 12.5],
      ['t', 75, 25],
    ])
    expect(segmentMarks(segments, 0)).toEqual([])
    expect(marksDescription(segments.slice(0, 2))).toBe('Marked segments: Preview or recap from 0:30 to 0:45.')
    expect(marksDescription([seg('k', 'skip', 0, 10)])).toBe('')
  })
})
