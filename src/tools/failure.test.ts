import { describe, expect, test } from 'bun:test'
import { toolErrorCases } from '../../tests/support/fake-ytdlp.ts'
import { classifyFfmpeg, classifyYtdlp, ERROR_KINDS, ERROR_SENTENCES, TRANSIENT_KINDS } from './failure.ts'

describe('failure kinds from the tools\' real texts (tests/fixtures/tool-errors.json)', () => {
  const cases = toolErrorCases()

  for (const c of cases) {
    test(`${c.tool} ${c.id} → ${c.kind}`, () => {
      expect(c.source.length).toBeGreaterThan(10)
      expect((c.tool === 'yt-dlp' ? classifyYtdlp : classifyFfmpeg)(c.text)).toBe(c.kind as never)
    })
  }

  test('every kind a tool text can produce is covered by at least one real text', () => {
    const covered = new Set(cases.map((c) => c.kind))
    // tool_missing comes from the spawn itself (no text to match); internal is the fallback; quota is the app's own (kept videos)
    for (const kind of ERROR_KINDS.filter((k) => k !== 'tool_missing' && k !== 'quota')) expect(covered.has(kind)).toBe(true)
  })

  test('each kind has one sentence for a person: no path, command line or trace', () => {
    for (const kind of ERROR_KINDS) {
      const sentence = ERROR_SENTENCES[kind]
      expect(sentence).toMatch(/^[A-Z].+\.$/)
      expect(sentence).not.toMatch(/\/|--|\bERROR\b|Traceback|\n/)
    }
    // a bot check fails the job at once (and pauses YouTube): retrying would only dig deeper
    expect([...TRANSIENT_KINDS].sort()).toEqual(['network', 'timeout', 'tool_outdated'])
  })

  test('an unknown yt-dlp text is internal; an unknown ffmpeg failure is a conversion failure', () => {
    expect(classifyYtdlp('ERROR: something new')).toBe('internal')
    expect(classifyFfmpeg('Conversion failed!')).toBe('conversion')
  })
})
