import { describe, expect, test } from 'bun:test'
import { splitArtistTitle, trackSearch, videoUrlOf } from './save-as-track.ts'

describe('save as track', () => {
  test("'Artist - Title' splits at the first spaced dash", () => {
    expect(splitArtistTitle('Daft Punk - One More Time')).toEqual({ artist: 'Daft Punk', title: 'One More Time' })
    expect(splitArtistTitle('A-ha - Take On Me – Live')).toEqual({ artist: 'A-ha', title: 'Take On Me – Live' })
    expect(splitArtistTitle('Artist — Title')).toEqual({ artist: 'Artist', title: 'Title' })
  })
  test('drops (Official Video) and similar noise', () => {
    expect(splitArtistTitle('Queen - Bohemian Rhapsody (Official Video)')).toEqual({ artist: 'Queen', title: 'Bohemian Rhapsody' })
    expect(splitArtistTitle('Adele - Hello [Official Music Video]')).toEqual({ artist: 'Adele', title: 'Hello' })
    expect(splitArtistTitle('Song (Lyrics)', 'Someone')).toEqual({ artist: 'Someone', title: 'Song' })
  })
  test('without a dash the title stays whole and the channel is the artist', () => {
    expect(splitArtistTitle('Ranking lost maps #1', 'Lofi Garden')).toEqual({ artist: 'Lofi Garden', title: 'Ranking lost maps #1' })
    expect(splitArtistTitle('Hyphen-ated title', 'Chan')).toEqual({ artist: 'Chan', title: 'Hyphen-ated title' })
    expect(splitArtistTitle('Some Song', 'Nina Simone - Topic')).toEqual({ artist: 'Nina Simone', title: 'Some Song' })
  })
  test('the video URL: direct media file in demo mode, else the YouTube watch page', () => {
    expect(videoUrlOf({ id: 'abcdefghijk', mediaUrl: null })).toBe('https://www.youtube.com/watch?v=abcdefghijk')
    expect(videoUrlOf({ id: 'abcdefghijk', mediaUrl: 'http://127.0.0.1:4010/media/abcdefghijk.webm' })).toBe(
      'http://127.0.0.1:4010/media/abcdefghijk.webm',
    )
  })
  test('the downloader search carries URL, title, artist and artwork', () => {
    expect(
      trackSearch({ id: 'abcdefghijk', title: 'Artist - Song', thumbnail: 'https://i.ytimg.com/x.jpg', mediaUrl: null, channel: { title: 'C' } }),
    ).toEqual({ videoUrl: 'https://www.youtube.com/watch?v=abcdefghijk', title: 'Song', artist: 'Artist', artworkUrl: 'https://i.ytimg.com/x.jpg' })
  })
})
