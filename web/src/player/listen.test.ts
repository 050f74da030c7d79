import { describe, expect, test } from 'bun:test'
import { AUDIO_FALLBACK_POLL_MS, AUDIO_POLL_MS, PREPARING_TEXT, audioPollInterval, audioPushMessage, audioSrc, listenNotice, listenStorageKey, nextToPrepare, readListen, writeListen } from './listen.ts'

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

  test('is asked for again only while it is fetched: every 5 s with the socket open (a fallback), every second without', () => {
    expect(audioPollInterval({ state: 'fetching', error: null })).toBe(AUDIO_POLL_MS)
    expect(audioPollInterval({ state: 'fetching', error: null }, false)).toBe(AUDIO_POLL_MS)
    expect(audioPollInterval({ state: 'fetching', error: null }, true)).toBe(AUDIO_FALLBACK_POLL_MS)
    expect(AUDIO_POLL_MS).toBe(1000)
    expect(AUDIO_FALLBACK_POLL_MS).toBe(5000)
    for (const open of [false, true]) {
      expect(audioPollInterval({ state: 'ready', error: null }, open)).toBe(false)
      expect(audioPollInterval({ state: 'failed', error: 'No.' }, open)).toBe(false)
      expect(audioPollInterval(undefined, open)).toBe(false)
    }
  })

  test("the channel socket's readiness messages are read; anything else is not one", () => {
    expect(audioPushMessage({ videoId: 'dQw4w9WgXcQ', audio: { state: 'ready', error: null } })).toEqual({ videoId: 'dQw4w9WgXcQ', audio: { state: 'ready', error: null } })
    expect(audioPushMessage({ videoId: 'dQw4w9WgXcQ', audio: { state: 'failed', error: 'The video is private.' } })).toEqual({
      videoId: 'dQw4w9WgXcQ',
      audio: { state: 'failed', error: 'The video is private.' },
    })
    for (const other of [null, 3, 'x', { status: 'PING' }, { id: 'UC1', updating: false }, { videoId: 'a', audio: { state: 'done' } }, { videoId: 1, audio: { state: 'ready' } }]) {
      expect(audioPushMessage(other)).toBeNull()
    }
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
