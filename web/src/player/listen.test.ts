import { describe, expect, test } from 'bun:test'
import { AUDIO_POLL_MS, PREPARING_TEXT, audioPollInterval, audioSrc, listenNotice, listenStorageKey, nextToPrepare, readListen, writeListen } from './listen.ts'

/** A Storage stand-in (bun test has no DOM): a Map behind the three methods used. */
function memoryStorage(fail = false) {
  const map = new Map<string, string>()
  return {
    map,
    getItem: (k: string) => {
      if (fail) throw new DOMException('denied', 'SecurityError')
      return map.get(k) ?? null
    },
    setItem: (k: string, v: string) => {
      if (fail) throw new DOMException('full', 'QuotaExceededError')
      map.set(k, v)
    },
    removeItem: (k: string) => void map.delete(k),
  }
}

describe('listen mode: the remembered choice', () => {
  test('is kept per account on this device', () => {
    const storage = memoryStorage()
    expect(readListen(storage, 'user-a')).toBe(false)
    writeListen(storage, 'user-a', true)
    expect(readListen(storage, 'user-a')).toBe(true)
    // another account on the same device keeps its own (off)
    expect(readListen(storage, 'user-b')).toBe(false)
    expect(storage.map.get(listenStorageKey('user-a'))).toBe('on')
    writeListen(storage, 'user-a', false)
    expect(readListen(storage, 'user-a')).toBe(false)
    expect(storage.map.size).toBe(0)
  })

  test('is off without an account, with something else stored, or when storage refuses', () => {
    const storage = memoryStorage()
    writeListen(storage, null, true)
    expect(storage.map.size).toBe(0)
    expect(readListen(storage, undefined)).toBe(false)
    storage.map.set(listenStorageKey('user-a'), 'true')
    expect(readListen(storage, 'user-a')).toBe(false)
    const refusing = memoryStorage(true)
    expect(readListen(refusing, 'user-a')).toBe(false)
    expect(() => writeListen(refusing, 'user-a', true)).not.toThrow()
    expect(readListen(undefined, 'user-a')).toBe(false)
  })
})

describe('listen mode: audio', () => {
  test('plays from the audio route', () => {
    expect(audioSrc('dQw4w9WgXcQ')).toBe('/api/youtube/videos/dQw4w9WgXcQ/audio')
    expect(audioSrc('a-b_c')).toBe('/api/youtube/videos/a-b_c/audio')
  })

  test('is asked for again every second only while it is fetched', () => {
    expect(audioPollInterval({ state: 'fetching', error: null })).toBe(AUDIO_POLL_MS)
    expect(AUDIO_POLL_MS).toBe(1000)
    expect(audioPollInterval({ state: 'ready', error: null })).toBe(false)
    expect(audioPollInterval({ state: 'failed', error: 'No.' })).toBe(false)
    expect(audioPollInterval(undefined)).toBe(false)
  })

  test('the next queued video on the page is prepared ahead; none past its end', () => {
    const list = [{ id: 'a' }, { id: 'b' }, { id: 'c' }]
    expect(nextToPrepare(list, 0)).toBe('b')
    expect(nextToPrepare(list, 1)).toBe('c')
    expect(nextToPrepare(list, 2)).toBeNull()
    expect(nextToPrepare([], 0)).toBeNull()
    // the same video twice in a row: nothing more to prepare
    expect(nextToPrepare([{ id: 'a' }, { id: 'a' }], 0)).toBeNull()
  })

  test('the player says in words what the audio is doing', () => {
    expect(listenNotice(false, undefined)).toEqual({ kind: 'none' })
    expect(listenNotice(false, { state: 'failed', error: 'x' })).toEqual({ kind: 'none' })
    expect(listenNotice(true, undefined)).toEqual({ kind: 'preparing', text: PREPARING_TEXT })
    expect(PREPARING_TEXT).toBe('Preparing audio…')
    expect(listenNotice(true, { state: 'fetching', error: null })).toEqual({ kind: 'preparing', text: 'Preparing audio…' })
    expect(listenNotice(true, { state: 'ready', error: null })).toEqual({ kind: 'none' })
    const sentence = 'This video is private: only its owner can play it.'
    expect(listenNotice(true, { state: 'failed', error: sentence })).toEqual({ kind: 'failed', text: sentence })
    expect(listenNotice(true, { state: 'failed', error: null }).kind).toBe('failed')
    // the request itself failed (404, no connection): its sentence
    expect(listenNotice(true, undefined, 'Youtube video not found.')).toEqual({ kind: 'failed', text: 'Youtube video not found.' })
  })
})
