import { expect, test } from 'bun:test'
import { lyricsService } from './status.ts'

// `lyrics.url` in GET /api/admin/status (decision 268): where look-ups go, never a user or password.

test('off is null; the address is shown without any user or password written into it', () => {
  expect(lyricsService('off')).toBeNull()
  expect(lyricsService('https://lrclib.net')).toBe('https://lrclib.net')
  expect(lyricsService('https://me:secret@lyrics.example.org/lrclib/')).toBe('https://lyrics.example.org/lrclib')
})
