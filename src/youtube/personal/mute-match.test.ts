import { describe, expect, test } from 'bun:test'
import { muteMatcher, wordsOf } from './mute-match.ts'

describe('muted words match whole words', () => {
  const mutes = (entry: string, title: string) => muteMatcher([entry]).mutes(title)

  test('case-insensitive, between non-letter/digit boundaries', () => {
    expect(mutes('cat', 'Cat videos')).toBe(true)
    expect(mutes('cat', "the CAT's toy")).toBe(true)
    expect(mutes('cat', 'Concatenate strings')).toBe(false)
    expect(mutes('cat', 'cats')).toBe(false)
    expect(mutes('v3', 'release v3.5')).toBe(true)
    expect(mutes('5', 'release v3.5')).toBe(true)
    expect(mutes('3', 'release v3.5')).toBe(false)
  })

  test('any script: accents, Cyrillic, Greek, combining marks', () => {
    expect(mutes('café', 'Le CAFÉ du coin')).toBe(true)
    expect(mutes('caf', 'Le café du coin')).toBe(false)
    expect(mutes('café', 'Le cafe\u0301 du coin')).toBe(true) // decomposed é
    expect(mutes('кот', 'Мой КОТ спит')).toBe(true)
    expect(mutes('кот', 'котёнок')).toBe(false)
    expect(mutes('σπίτι', 'ΣΠΊΤΙ μου')).toBe(true)
  })

  test("a phrase's words in order, whatever lies between them", () => {
    expect(mutes('new cats', 'NEW — cats!')).toBe(true)
    expect(mutes('new cats', 'cats new')).toBe(false)
    expect(mutes('new cats', 'new big cats')).toBe(false)
  })

  test('hits names each entry a title contains', () => {
    const m = muteMatcher(['night skies', 'Why', 'trains'])
    expect(m.hits('Why night skies #3')).toEqual([0, 1])
    expect(m.hits('Testing city trains #9')).toEqual([2])
    expect(m.hits('Nothing here')).toEqual([])
    expect(wordsOf('A-b_c')).toEqual(['a', 'b', 'c'])
  })
})
