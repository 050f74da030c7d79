import { describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ffmpeg } from '../../tests/support/media.ts'
import { sniffImage } from './files.ts'
import { imageSize, squareArtwork } from './square.ts'

const FFMPEG = { path: process.env.FFMPEG_PATH || '/usr/bin/ffmpeg', source: 'config' as const, version: null }

async function image(name: string, size: string) {
  const dir = mkdtempSync(join(tmpdir(), 'tunefeed-square-'))
  const path = join(dir, name)
  await ffmpeg(['-f', 'lavfi', '-i', `color=c=green:s=${size}`, '-frames:v', '1', path])
  const bytes = new Uint8Array(readFileSync(path))
  return { dir, bytes, artwork: { ...sniffImage(bytes)!, bytes } }
}

describe('square covers', () => {
  test.each([
    ['a.jpg', '160x90'],
    ['a.png', '48x64'],
    ['a.gif', '30x20'],
    ['a.webp', '160x90'],
  ])('imageSize reads %s (%s)', async (name, size) => {
    const { bytes } = await image(name, size)
    const [width, height] = size.split('x').map(Number)
    expect(imageSize(bytes)).toEqual({ width: width!, height: height! })
  })

  test('a 16:9 thumbnail is centre-cropped to a square JPEG', async () => {
    const { dir, artwork } = await image('thumb.jpg', '160x90')
    const square = await squareArtwork(FFMPEG, artwork, dir, AbortSignal.timeout(10_000))
    expect(square.mime).toBe('image/jpeg')
    expect(imageSize(square.bytes)).toEqual({ width: 90, height: 90 })
  })

  test('a square cover is kept byte for byte; an unreadable one is left as it is', async () => {
    const { dir, artwork } = await image('cover.png', '64x64')
    expect(await squareArtwork(FFMPEG, artwork, dir, AbortSignal.timeout(10_000))).toBe(artwork)
    const broken = { ext: 'jpg' as const, mime: 'image/jpeg', bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xc0, 0, 17, 8, 0, 10, 0, 20, 3]) }
    expect(await squareArtwork(FFMPEG, broken, dir, AbortSignal.timeout(10_000))).toBe(broken)
  })
})
