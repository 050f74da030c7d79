import { describe, expect, test } from 'bun:test'
import { emptyMusicForm } from './form.ts'
import { applyCandidate, clock, fillEmpty, isYoutubeLink, type Lookup } from './suggest.ts'

const lookup: Lookup = {
  title: 'Get Lucky',
  artist: 'Daft Punk',
  album: null,
  grouping: 'Daft Punk - Topic',
  artworkUrl: 'https://i.ytimg.com/vi/x/maxresdefault.jpg',
  trackNumber: 8,
  year: 2013,
  duration: 369,
  chapters: [],
  playlist: null,
}

describe('fillEmpty: suggestions fill empty fields and never overwrite typed ones', () => {
  test('an empty form is filled, the album derived from the suggested title', () => {
    expect(fillEmpty(emptyMusicForm, lookup)).toMatchObject({
      title: 'Get Lucky',
      artist: 'Daft Punk',
      album: 'Get Lucky - Single',
      grouping: 'Daft Punk - Topic',
      artworkUrl: 'https://i.ytimg.com/vi/x/maxresdefault.jpg',
      year: '2013',
      trackNumber: '8',
    })
  })

  test('typed fields stay as typed', () => {
    const typed = { ...emptyMusicForm, title: 'My Title', artist: 'Me', album: 'Mine', year: '1999', artworkUrl: 'https://x.test/a.png' }
    expect(fillEmpty(typed, { ...lookup, album: 'Random Access Memories' })).toMatchObject({
      title: 'My Title',
      artist: 'Me',
      album: 'Mine',
      year: '1999',
      artworkUrl: 'https://x.test/a.png',
      trackNumber: '8',
    })
  })

  test('an album derived from a typed title gives way to the link\'s album', () => {
    const typed = { ...emptyMusicForm, title: 'My Title', album: 'My Title - Single' }
    expect(fillEmpty(typed, { ...lookup, album: 'Random Access Memories' }).album).toBe('Random Access Memories')
  })
})

test('applyCandidate replaces the tags with the candidate\'s, cover included', () => {
  const picked = applyCandidate(
    { ...emptyMusicForm, title: 'get lucky', artist: 'daft punk' },
    { title: 'Get Lucky', artist: 'Daft Punk feat. Pharrell Williams', album: 'Random Access Memories', year: 2013, trackNumber: 8, trackCount: 13, coverUrl: 'https://c.test/1-500.jpg', recordingId: 'r', releaseId: 'x' },
  )
  expect(picked).toMatchObject({ title: 'Get Lucky', artist: 'Daft Punk feat. Pharrell Williams', album: 'Random Access Memories', year: '2013', trackNumber: '8', artworkUrl: 'https://c.test/1-500.jpg' })
})

test('isYoutubeLink and clock', () => {
  expect(isYoutubeLink('https://www.youtube.com/watch?v=abc')).toBe(true)
  expect(isYoutubeLink('https://youtu.be/abc')).toBe(true)
  expect(isYoutubeLink('https://vimeo.com/1')).toBe(false)
  expect(clock(4)).toBe('0:04')
  expect(clock(3723)).toBe('1:02:03')
})
