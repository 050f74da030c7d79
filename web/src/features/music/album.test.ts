import { describe, expect, test } from 'bun:test'
import { albumFromTitle } from './album.ts'

describe('albumFromTitle (docs/product.md#album-from-title)', () => {
  test('no parentheses: the title and " - Single"', () => {
    expect(albumFromTitle('Blue Monday')).toBe('Blue Monday - Single')
    expect(albumFromTitle('Intro')).toBe('Intro - Single')
  })

  test('at most 2 words are kept as they are', () => {
    expect(albumFromTitle('Blue Monday (Extended Mix)')).toBe('Blue Monday - Mix')
    expect(albumFromTitle('Strobe (Radio Edit)')).toBe('Strobe - Edit')
  })

  test('more than 2 words before parentheses become their initials', () => {
    expect(albumFromTitle('Never Gonna Give You Up (Official Video)')).toBe('NGGYU - Video')
    expect(albumFromTitle('One More Time (Live)')).toBe('OMT - Live')
  })

  test('a single (no parentheses) keeps its whole title (docs/decisions/274)', () => {
    expect(albumFromTitle('Never Gonna Give You Up')).toBe('Never Gonna Give You Up - Single')
    expect(albumFromTitle('Ranking lost maps #1')).toBe('Ranking lost maps #1 - Single')
  })

  test('initials keep their case', () => {
    expect(albumFromTitle('the quick brown fox (x)')).toBe('tqbf - x')
    expect(albumFromTitle('Song of the Year (Live)')).toBe('SotY - Live')
  })

  test('the text before the parenthesis is trimmed, extra spaces do not make words', () => {
    expect(albumFromTitle('  Blue   Monday   (Extended  Mix )  ')).toBe('Blue Monday - Mix')
    expect(albumFromTitle('a  b\tc (x)')).toBe('abc - x')
  })

  test('the last word inside the first parentheses', () => {
    expect(albumFromTitle('Track (feat. Someone) (VIP Remix)')).toBe('Track - Someone')
    expect(albumFromTitle('Track(Remix)')).toBe('Track - Remix')
    expect(albumFromTitle('Track [Live] (2019 Remaster)')).toBe('Track [Live] - Remaster')
  })

  test('empty or unclosed parentheses', () => {
    expect(albumFromTitle('Track ()')).toBe('Track - Single')
    expect(albumFromTitle('Track (   )')).toBe('Track - Single')
    expect(albumFromTitle('Track (Club Mix')).toBe('Track - Mix')
  })

  test('nothing before the parenthesis', () => {
    expect(albumFromTitle('(Intro)')).toBe('Intro')
    expect(albumFromTitle('()')).toBe('Single')
  })

  test('an empty title gives an empty album', () => {
    expect(albumFromTitle('')).toBe('')
    expect(albumFromTitle('   ')).toBe('')
  })

  test('words in other scripts and with emoji', () => {
    expect(albumFromTitle('Café del Mar (Remix)')).toBe('CdM - Remix')
    expect(albumFromTitle('Émile et les autres (Live)')).toBe('Éela - Live')
    expect(albumFromTitle('🎵 la la (Edit)')).toBe('🎵ll - Edit')
  })
})
