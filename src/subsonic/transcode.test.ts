import { expect, test } from 'bun:test'
import { takeSlot, transcodesRunning, wantedOf } from './transcode.ts'

// The transcoding bounds and choices, without ffmpeg (players.test.ts streams through it).

test('at most the limit app-wide and one per user; a released slot is free again, once', () => {
  const a = takeSlot('a', 2)
  expect(a).not.toBeNull()
  expect(takeSlot('a', 2)).toBeNull()
  const b = takeSlot('b', 2)
  expect(b).not.toBeNull()
  expect(takeSlot('c', 2)).toBeNull()
  expect(transcodesRunning()).toBe(2)
  a!()
  a!()
  expect(transcodesRunning()).toBe(1)
  const c = takeSlot('c', 2)
  expect(c).not.toBeNull()
  b!()
  c!()
  expect(transcodesRunning()).toBe(0)
  expect(takeSlot('a', 0)).toBeNull()
})

test('no change means the stored file: the stored format at or under the stored rate, or raw', () => {
  expect(wantedOf({}, 128)).toBeNull()
  expect(wantedOf({ format: 'mp3' }, 128)).toBeNull()
  expect(wantedOf({ maxBitRate: 128 }, 128)).toBeNull()
  expect(wantedOf({ maxBitRate: 320 }, 128)).toBeNull()
  expect(wantedOf({ maxBitRate: 0 }, 128)).toBeNull()
  expect(wantedOf({ format: 'raw', maxBitRate: 64, timeOffset: 5 }, 128)).toBeNull()
  expect(wantedOf({ maxBitRate: 64 }, 128)).toEqual({ format: 'mp3', bitRate: 64, offset: 0 })
  expect(wantedOf({ maxBitRate: 100 }, 128)).toEqual({ format: 'mp3', bitRate: 96, offset: 0 })
  expect(wantedOf({ timeOffset: 30 }, 128)).toEqual({ format: 'mp3', bitRate: 128, offset: 30 })
  expect(wantedOf({ format: 'opus' }, 256)).toEqual({ format: 'opus', bitRate: 128, offset: 0 })
  expect(wantedOf({ format: 'opus', maxBitRate: 48 }, 256)).toEqual({ format: 'opus', bitRate: 48, offset: 0 })
})
