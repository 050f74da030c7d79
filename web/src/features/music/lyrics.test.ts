import { expect, test } from 'bun:test'
import { currentLine, parseLyrics } from './lyrics.ts'

test('LRC: synced lines in time order, several times per line, the offset applied, tags dropped', () => {
  const l = parseLyrics('[ar:Someone]\n[offset:+200]\n[00:03.45]And the light\n[00:01.20][00:05.00]Morning comes\n')
  expect(l).toEqual({
    synced: true,
    lines: [
      { start: 1000, value: 'Morning comes' },
      { start: 3250, value: 'And the light' },
      { start: 4800, value: 'Morning comes' },
    ],
  })
  expect([0, 0.999, 1, 3.3, 10].map((s) => currentLine(l, s))).toEqual([-1, -1, 0, 1, 2])
})

test('plain text: one line each, blank ends dropped, no current line', () => {
  const l = parseLyrics('\nOnly words\n\nhere\n\n')
  expect(l).toEqual({ synced: false, lines: [{ value: 'Only words' }, { value: '' }, { value: 'here' }] })
  expect(currentLine(l, 5)).toBe(-1)
})
