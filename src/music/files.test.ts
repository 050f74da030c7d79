import { describe, expect, test } from 'bun:test'
import { coverFromHtml, soundcloudLarge } from './artwork.ts'
import { inside, mp3Name, sniffAudio, sniffImage } from './files.ts'

const bytes = (...b: number[]) => new Uint8Array([...b, ...new Array(16).fill(0)])

describe('sniffAudio', () => {
  test('MPEG audio frames, ID3v2 headers and RIFF WAVE', () => {
    expect(sniffAudio(bytes(0xff, 0xfb, 0x90, 0x64))).toBe('mp3') // MPEG-1 Layer III 128k 44.1k
    expect(sniffAudio(bytes(0xff, 0xf3, 0x48, 0xc4))).toBe('mp3') // MPEG-2 Layer III
    expect(sniffAudio(new Uint8Array(Buffer.from('ID3\x03\x00\x00\x00\x00\x0f\x76rest')))).toBe('mp3')
    expect(sniffAudio(new Uint8Array(Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ')))).toBe('wav')
  })

  test('near misses are refused', () => {
    expect(sniffAudio(bytes(0xff, 0xf1, 0x50, 0x80))).toBeNull() // ADTS AAC (layer 00)
    expect(sniffAudio(bytes(0xff, 0xeb, 0x90, 0x64))).toBeNull() // reserved version
    expect(sniffAudio(bytes(0xff, 0xfb, 0xf0, 0x64))).toBeNull() // bad bitrate index
    expect(sniffAudio(bytes(0xff, 0xfb, 0x9c, 0x64))).toBeNull() // reserved sample rate
    expect(sniffAudio(new Uint8Array(Buffer.from('ID3\x09\x00\x00\x00\x00\x00\x00')))).toBeNull()
    expect(sniffAudio(new Uint8Array(Buffer.from('RIFF\x24\x00\x00\x00WEBPVP8 ')))).toBeNull()
    expect(sniffAudio(new Uint8Array(Buffer.from('OggS\x00\x02\x00\x00\x00\x00\x00\x00')))).toBeNull()
    expect(sniffAudio(new Uint8Array())).toBeNull()
  })
})

test('sniffImage', () => {
  expect(sniffImage(bytes(0xff, 0xd8, 0xff, 0xe0))?.mime).toBe('image/jpeg')
  expect(sniffImage(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a))?.ext).toBe('png')
  expect(sniffImage(new Uint8Array(Buffer.from('GIF89a....')))?.ext).toBe('gif')
  expect(sniffImage(new Uint8Array(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')))).toBeNull()
})

describe('mp3Name', () => {
  test('readable, from the tags', () => {
    expect(mp3Name('Artist', 'Title (Live)')).toBe('Artist - Title (Live).mp3')
    expect(mp3Name('Björk', 'Jóga')).toBe('Björk - Jóga.mp3')
  })

  test('never a path, a hidden file or too long', () => {
    expect(mp3Name('../..', '../../etc/passwd')).toBe('etc passwd.mp3')
    expect(mp3Name('a/b\\c', 'd:e*f?g"h<i>j|k')).toBe('a b c - d e f g h i j k.mp3')
    expect(mp3Name('', '...')).toBe('track.mp3')
    expect(mp3Name('x\u0000\u001f\u007f', 'y\nz')).toBe('x - yz.mp3')
    const long = mp3Name('é'.repeat(200), 't')
    expect(new TextEncoder().encode(long).length).toBeLessThanOrEqual(184)
    expect(long.endsWith('.mp3')).toBe(true)
  })
})

test('inside refuses escapes', () => {
  expect(inside('/data/job', 'output/a.mp3')).toBe('/data/job/output/a.mp3')
  expect(() => inside('/data/job', '../other/x')).toThrow()
  expect(() => inside('/data/job', '/etc/passwd')).toThrow()
  expect(() => inside('/data/job', '')).toThrow()
})

describe('artwork resolution helpers', () => {
  test('SoundCloud artwork at 500x500', () => {
    expect(soundcloudLarge('https://i1.sndcdn.com/artworks-000123-abc-large.jpg')).toBe('https://i1.sndcdn.com/artworks-000123-abc-t500x500.jpg')
    expect(soundcloudLarge('https://i1.sndcdn.com/artworks-x-t300x300.png')).toBe('https://i1.sndcdn.com/artworks-x-t500x500.png')
    expect(soundcloudLarge('https://example.com/artworks-x-large.jpg')).toBe('https://example.com/artworks-x-large.jpg')
  })

  test('og:image before twitter:image, relative URLs resolved, attributes in any order', () => {
    const page = `<meta name="twitter:image" content="/t.jpg"><meta content='/og.png?a=1&amp;b=2' property='og:image'>`
    expect(coverFromHtml(page, 'http://host/page/')).toBe('http://host/og.png?a=1&b=2')
    expect(coverFromHtml('<meta name=twitter:image content=https://cdn/x.jpg>', 'http://host/')).toBe('https://cdn/x.jpg')
    expect(coverFromHtml('<meta property="og:image" content="javascript:alert(1)">', 'http://host/')).toBeNull()
    expect(coverFromHtml('<title>none</title>', 'http://host/')).toBeNull()
  })
})
