import { expect, test } from 'bun:test'
import { musicDownloaderSearch } from './search.ts'

test('prefill search params: strings kept, numbers as text, junk dropped', () => {
  expect(musicDownloaderSearch.parse({})).toEqual({})
  expect(musicDownloaderSearch.parse({ videoUrl: 'https://x.test/v', title: ' Song (Live) ', artist: 'A', artworkUrl: 'https://x.test/a.jpg' })).toEqual({
    videoUrl: 'https://x.test/v',
    title: 'Song (Live)',
    artist: 'A',
    artworkUrl: 'https://x.test/a.jpg',
  })
  expect(musicDownloaderSearch.parse({ title: 1999 }).title).toBe('1999')
  expect(musicDownloaderSearch.parse({ title: { a: 1 }, artist: ['x'], other: 'kept out' })).toEqual({ title: undefined, artist: undefined })
})
