import { describe, expect, test } from 'bun:test'
import { arrivalIndex, arrowTarget, formatTime, percentPlayed, resumePosition, shouldMarkWatched, step } from './logic.ts'

describe('step (docs/product.md#autoplay: previous/next, page boundaries)', () => {
  const at = (index: number, page = 2, totalPages = 3, length = 48) => ({ index, length, page, totalPages })

  test('moves by one inside a page', () => {
    expect(step(at(5), 1)).toEqual({ kind: 'index', index: 6 })
    expect(step(at(5), -1)).toEqual({ kind: 'index', index: 4 })
  })
  test('past the last item loads the next page at index 0', () => {
    expect(step(at(47), 1)).toEqual({ kind: 'page', page: 3, at: 'first' })
  })
  test('below 0 loads the previous page at its last item', () => {
    expect(step(at(0), -1)).toEqual({ kind: 'page', page: 1, at: 'last' })
  })
  test('nothing past the very last or before the very first video', () => {
    expect(step(at(47, 3, 3), 1)).toEqual({ kind: 'none' })
    expect(step(at(0, 1, 3), -1)).toEqual({ kind: 'none' })
    expect(step({ index: 0, length: 0, page: 1, totalPages: 0 }, 1)).toEqual({ kind: 'none' })
  })
  test('a short last page ends where its items end', () => {
    expect(step(at(4, 3, 3, 5), 1)).toEqual({ kind: 'none' })
    expect(step(at(3, 3, 3, 5), 1)).toEqual({ kind: 'index', index: 4 })
  })
  test('arrival index is 0 or the last item', () => {
    expect(arrivalIndex('first', 48)).toBe(0)
    expect(arrivalIndex('last', 48)).toBe(47)
    expect(arrivalIndex('last', 0)).toBe(0)
  })
})

describe('watched after 20 s (docs/product.md#video-marks)', () => {
  test('only past 20 s and only when not yet watched', () => {
    expect(shouldMarkWatched(20, null)).toBe(false)
    expect(shouldMarkWatched(20.5, null)).toBe(true)
    expect(shouldMarkWatched(25, '2026-01-01T00:00:00Z')).toBe(false)
  })
})

describe('resume position', () => {
  test('resumes at the saved second', () => {
    expect(resumePosition({ playedSeconds: 12.7, duration: 30 })).toBe(12)
  })
  test('starts from 0 when nothing was saved, barely started or finished', () => {
    expect(resumePosition(null)).toBe(0)
    expect(resumePosition({ playedSeconds: 2, duration: 30 })).toBe(0)
    expect(resumePosition({ playedSeconds: 27, duration: 30 })).toBe(0)
    expect(resumePosition({ playedSeconds: 30, duration: 30 })).toBe(0)
  })
  test('an unknown duration keeps the position', () => {
    expect(resumePosition({ playedSeconds: 100, duration: 0 })).toBe(100)
  })
})

describe('format', () => {
  test('times', () => {
    expect(formatTime(0)).toBe('0:00')
    expect(formatTime(5.9)).toBe('0:05')
    expect(formatTime(205)).toBe('3:25')
    expect(formatTime(3723)).toBe('1:02:03')
    expect(formatTime(Number.NaN)).toBe('0:00')
  })
  test('percent', () => {
    expect(percentPlayed(15, 30)).toBe(50)
    expect(percentPlayed(40, 30)).toBe(100)
    expect(percentPlayed(5, 0)).toBe(0)
  })
})

describe('progress slider keys', () => {
  test('an arrow key moves 5 s, within 0-100 %', () => {
    expect(arrowTarget(50, 100, 'ArrowRight')).toBe(55)
    expect(arrowTarget(50, 100, 'ArrowUp')).toBe(55)
    expect(arrowTarget(50, 100, 'ArrowLeft')).toBe(45)
    expect(arrowTarget(10, 600, 'ArrowDown')).toBeCloseTo(10 - 500 / 600)
    expect(arrowTarget(99, 100, 'ArrowRight')).toBe(100)
    expect(arrowTarget(2, 100, 'ArrowLeft')).toBe(0)
  })

  test('other keys, or an unknown duration, leave it to the slider', () => {
    expect(arrowTarget(50, 100, 'Home')).toBeUndefined()
    expect(arrowTarget(50, 0, 'ArrowRight')).toBeUndefined()
  })
})
