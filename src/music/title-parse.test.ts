import { describe, expect, test } from 'bun:test'
import { artistFromChannel, parseUploadTitle } from './title-parse.ts'

describe('parseUploadTitle: the common upload patterns', () => {
  test.each([
    ['Daft Punk - Get Lucky (Official Video) [4K]', 'Daft Punk', 'Get Lucky'],
    ['Daft Punk - Get Lucky (Official Music Video)', 'Daft Punk', 'Get Lucky'],
    ['Adele – Hello (Official Audio)', 'Adele', 'Hello'],
    ['Adele — Hello [HD]', 'Adele', 'Hello'],
    ['Queen - Bohemian Rhapsody (Lyrics)', 'Queen', 'Bohemian Rhapsody'],
    ['Queen - Bohemian Rhapsody (Lyric Video)', 'Queen', 'Bohemian Rhapsody'],
    ['Queen - Bohemian Rhapsody (Remastered 2011)', 'Queen', 'Bohemian Rhapsody (Remastered 2011)'],
    ['Radiohead - Creep (Live at Glastonbury)', 'Radiohead', 'Creep (Live at Glastonbury)'],
    ['Hello | Adele', 'Adele', 'Hello'],
    ['Hello | Adele | Official Video', 'Adele', 'Hello'],
    ['Mark Ronson - Uptown Funk ft. Bruno Mars', 'Mark Ronson', 'Uptown Funk (feat. Bruno Mars)'],
    ['Mark Ronson - Uptown Funk (feat. Bruno Mars) [Official Video]', 'Mark Ronson', 'Uptown Funk (feat. Bruno Mars)'],
    ['Mark Ronson ft. Bruno Mars - Uptown Funk', 'Mark Ronson', 'Uptown Funk (feat. Bruno Mars)'],
    ['Calvin Harris feat. Rihanna - This Is What You Came For', 'Calvin Harris', 'This Is What You Came For (feat. Rihanna)'],
    ['Eminem "Lose Yourself"', 'Eminem', 'Lose Yourself'],
    ['Artist - Title | Label Records', 'Artist', 'Title'],
    ['Artist - Title - Official Video', 'Artist', 'Title'],
    ['Artist ~ Title (Visualizer)', 'Artist', 'Title'],
    ['  Artist  -  Title   (Audio)  ', 'Artist', 'Title'],
    ['AC/DC - Back In Black (Official 4K Video)', 'AC/DC', 'Back In Black'],
  ])('%s', (raw, artist, title) => {
    expect(parseUploadTitle(raw)).toEqual({ artist, title })
  })

  test('no pattern: the cleaned title, no artist', () => {
    expect(parseUploadTitle('Lofi beats to study to (Official Video)')).toEqual({ title: 'Lofi beats to study to', artist: null })
    expect(parseUploadTitle('Test Video')).toEqual({ title: 'Test Video', artist: null })
  })

  test('a hyphen inside a word is not a separator', () => {
    expect(parseUploadTitle('Jay-Z - Empire State of Mind')).toEqual({ artist: 'Jay-Z', title: 'Empire State of Mind' })
  })

  test('a title made only of noise is kept rather than emptied', () => {
    expect(parseUploadTitle('(Official Video)').title).toBe('(Official Video)')
  })
})

describe('artistFromChannel', () => {
  test.each([
    ['Daft Punk - Topic', 'Daft Punk'],
    ['AdeleVEVO', 'Adele'],
    ['Some Channel', 'Some Channel'],
    ['', null],
    [null, null],
  ])('%s', (channel, expected) => {
    expect(artistFromChannel(channel)).toBe(expected)
  })
})
