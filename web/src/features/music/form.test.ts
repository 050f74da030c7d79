import { describe, expect, test } from 'bun:test'
import { afterJobCreated, classifyArtwork, downloadName, emptyMusicForm, FILE_TYPE_ERROR, isAcceptedAudio, isReadableAudio, validateMusicForm } from './form.ts'

const file = (name: string, type: string) => new File([new Uint8Array(4)], name, { type })

describe('validateMusicForm (docs/product.md#music-form)', () => {
  test('empty URL form: Invalid Link and three Required', () => {
    expect(validateMusicForm(emptyMusicForm)).toEqual({ videoUrl: 'Invalid Link', title: 'Required', artist: 'Required', album: 'Required' })
  })

  test('the video URL must parse as an http(s) URL', () => {
    const base = { ...emptyMusicForm, title: 't', artist: 'a', album: 'b' }
    expect(validateMusicForm({ ...base, videoUrl: 'not a link' }).videoUrl).toBe('Invalid Link')
    expect(validateMusicForm({ ...base, videoUrl: 'javascript:alert(1)' }).videoUrl).toBe('Invalid Link')
    expect(validateMusicForm({ ...base, videoUrl: 'https://example.com/watch?v=1' })).toEqual({})
    expect(validateMusicForm({ ...base, videoUrl: '  http://127.0.0.1:8080/a.mp3 ' })).toEqual({})
  })

  test('file mode: the file is required and the URL is not', () => {
    const base = { ...emptyMusicForm, source: 'file' as const, videoUrl: 'garbage', title: 't', artist: 'a', album: 'b' }
    expect(validateMusicForm(base)).toEqual({ file: 'Required' })
    expect(validateMusicForm({ ...base, file: file('a.mp3', 'audio/mpeg') })).toEqual({})
    expect(validateMusicForm({ ...base, file: file('a.wav', 'audio/wav') })).toEqual({})
    expect(validateMusicForm({ ...base, file: file('a.ogg', 'audio/ogg') })).toEqual({ file: FILE_TYPE_ERROR })
  })

  test('whitespace-only fields are Required; grouping is optional', () => {
    const v = { ...emptyMusicForm, videoUrl: 'https://x.test/', title: '  ', artist: 'a', album: 'b', grouping: '' }
    expect(validateMusicForm(v)).toEqual({ title: 'Required' })
  })

  test('lengths come from the server schema', () => {
    const v = { ...emptyMusicForm, videoUrl: 'https://x.test/', title: 'x'.repeat(301), artist: 'a', album: 'b' }
    expect(validateMusicForm(v)).toEqual({ title: 'At most 300 characters' })
  })
})

describe('isAcceptedAudio', () => {
  test('audio/mpeg and audio/wav and their aliases', () => {
    expect(isAcceptedAudio(file('a.mp3', 'audio/mpeg'))).toBe(true)
    expect(isAcceptedAudio(file('a.wav', 'audio/wav'))).toBe(true)
    expect(isAcceptedAudio(file('a.wav', 'audio/x-wav'))).toBe(true)
    expect(isAcceptedAudio(file('a.flac', 'audio/flac'))).toBe(false)
    expect(isAcceptedAudio(file('a.mp3', 'video/mp4'))).toBe(false)
  })
  test('no declared type: by extension', () => {
    expect(isAcceptedAudio(file('a.MP3', ''))).toBe(true)
    expect(isAcceptedAudio(file('a.txt', ''))).toBe(false)
  })
})

describe('classifyArtwork (docs/product.md#artwork)', () => {
  test('data images are used directly', () => {
    expect(classifyArtwork('data:image/png;base64,iVBORw0KGgo=')).toEqual({ kind: 'direct', url: 'data:image/png;base64,iVBORw0KGgo=' })
    expect(classifyArtwork('data:image/jpeg;base64,/9j/4A==').kind).toBe('direct')
  })
  test('URLs ending in .jpg, .jpeg or .png are used directly', () => {
    for (const u of ['https://x.test/a.jpg', 'https://x.test/a.JPEG', 'http://127.0.0.1:1/c.png']) expect(classifyArtwork(u)).toEqual({ kind: 'direct', url: u })
  })
  test('other parseable URLs are resolved through the server', () => {
    expect(classifyArtwork('https://soundcloud.com/a/b')).toEqual({ kind: 'resolve', url: 'https://soundcloud.com/a/b' })
    expect(classifyArtwork('https://x.test/a.jpg?size=500').kind).toBe('resolve')
    expect(classifyArtwork('https://x.test/a.webp').kind).toBe('resolve')
  })
  test('anything else clears it', () => {
    for (const u of ['', '   ', 'cover.jpg', 'not a url', 'data:text/plain;base64,aGk=', 'ftp://x.test/a.png']) expect(classifyArtwork(u)).toEqual({ kind: 'none' })
  })
})

test('downloadName is the part after the last slash', () => {
  expect(downloadName('/api/music/jobs/1/download/Artist - Title.mp3')).toBe('Artist - Title.mp3')
  expect(downloadName('Artist - Title.mp3')).toBe('Artist - Title.mp3')
  expect(downloadName('a/b/')).toBe('')
})

describe('afterJobCreated (docs/product.md#music-downloader: only the link, the artwork and the title are cleared)', () => {
  const filled = {
    ...emptyMusicForm,
    videoUrl: 'https://example.com/v',
    artworkUrl: 'https://example.com/a.jpg',
    title: 'Blue Monday',
    album: 'Blue Monday - Single',
    artist: 'New Order',
    grouping: 'Factory',
    year: '1983',
    trackNumber: '4',
  }

  test('year, track number, album, artist and grouping stay', () => {
    expect(afterJobCreated(filled)).toEqual({ ...filled, videoUrl: '', artworkUrl: '', title: '' })
  })

  test('an album typed by the person stays too', () => {
    expect(afterJobCreated({ ...filled, album: 'Power, Corruption & Lies' }).album).toBe('Power, Corruption & Lies')
  })
})

describe('isReadableAudio: a chosen file is checked by its bytes, as the server checks it', () => {
  test('ID3, an MPEG frame and RIFF/WAVE pass; text named .mp3 does not', async () => {
    const id3 = new Uint8Array([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 10, 0, 0])
    const frame = new Uint8Array([0xff, 0xfb, 0x90, 0x64])
    const wav = new TextEncoder().encode('RIFF\0\0\0\0WAVEfmt ')
    expect(await isReadableAudio(new File([id3], 'a.mp3', { type: 'audio/mpeg' }))).toBe(true)
    expect(await isReadableAudio(new File([frame], 'a.mp3', { type: 'audio/mpeg' }))).toBe(true)
    expect(await isReadableAudio(new File([wav], 'a.wav', { type: 'audio/wav' }))).toBe(true)
    expect(await isReadableAudio(new File(['this is not audio'], 'broken.mp3', { type: 'audio/mpeg' }))).toBe(false)
    expect(await isReadableAudio(new File([], 'empty.wav', { type: 'audio/wav' }))).toBe(false)
  })
})
