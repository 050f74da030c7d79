import { describe, expect, test } from 'bun:test'
import {
  type PlayerVideo,
  choose,
  clearPlayer,
  createPlayerState,
  currentVideo,
  ended,
  hydrateListen,
  next,
  patchListVideo,
  previous,
  setAutoplay,
  setListen,
  syncList,
} from './store.ts'

const video = (id: string): PlayerVideo => ({
  id,
  title: `Video ${id}`,
  thumbnail: '',
  channel: { id: 'UC1', title: 'Channel', thumbnail: '' },
  mediaUrl: `http://127.0.0.1/media/${id}.webm`,
  watched: null,
})
const page = (n: number, size = 3) => Array.from({ length: size }, (_, i) => video(`p${n}v${i}`))

function playing(totalPages = 3) {
  const s = createPlayerState()
  setAutoplay(true, s)
  syncList(s, 'feed', page(1), 1, totalPages)
  return s
}

describe('player store', () => {
  test('autoplay on: the list arrives and plays from its first video', () => {
    const s = playing()
    expect(s.autoplay).toBe(true)
    expect(s.playing).toBe(true)
    expect(currentVideo(s)?.id).toBe('p1v0')
    expect(s.startFrom).toBe('saved')
  })

  test('the end of a video advances and starts the next one afresh', () => {
    const s = playing()
    s.progress = { playedSeconds: 30, duration: 30 }
    const session = s.session
    ended(s)
    expect(s.index).toBe(1)
    expect(s.session).toBe(session + 1)
    expect(s.progress).toEqual({ playedSeconds: 0, duration: 0 })
  })

  test('past the last item the next page is requested, and it starts at index 0', () => {
    const s = playing()
    next(s)
    next(s)
    next(s)
    expect(s.pageRequest).toEqual({ page: 2, at: 'first' })
    expect(s.index).toBe(2) // unchanged until the page arrives
    syncList(s, 'feed', page(2), 2, 3)
    expect(s.page).toBe(2)
    expect(s.index).toBe(0)
    expect(currentVideo(s)?.id).toBe('p2v0')
    expect(s.pageRequest).toBeNull()
  })

  test('before the first item the previous page is requested, and it starts at its last item', () => {
    const s = playing()
    syncList(s, 'feed', page(2), 2, 3) // the user paged on
    expect(s.index).toBe(0)
    previous(s)
    expect(s.pageRequest).toEqual({ page: 1, at: 'last' })
    syncList(s, 'feed', page(1), 1, 3)
    expect(currentVideo(s)?.id).toBe('p1v2')
  })

  test('after the very last video it stops', () => {
    const s = playing(1)
    choose(2, s)
    ended(s)
    expect(s.playing).toBe(false)
    expect(s.pageRequest).toBeNull()
    expect(s.index).toBe(2)
  })

  test('previous on the very first video starts it again from 0', () => {
    const s = playing(1)
    const session = s.session
    previous(s)
    expect(s.index).toBe(0)
    expect(s.session).toBe(session + 1)
    expect(s.startFrom).toBe('zero')
  })

  test('choosing in the queue panel makes it current from 0', () => {
    const s = playing()
    s.progress = { playedSeconds: 12, duration: 30 }
    choose(2, s)
    expect(s.index).toBe(2)
    expect(s.startFrom).toBe('zero')
    expect(s.progress.playedSeconds).toBe(0)
    choose(9, s) // out of range: nothing
    expect(s.index).toBe(2)
  })

  test('fresh data of the same page keeps the current video even when it moved', () => {
    const s = playing()
    choose(1, s)
    const session = s.session
    const reordered = [video('new'), ...page(1)]
    syncList(s, 'feed', reordered, 1, 3)
    expect(currentVideo(s)?.id).toBe('p1v1')
    expect(s.index).toBe(2)
    expect(s.session).toBe(session) // no restart
  })

  test('another list starts over at its first video', () => {
    const s = playing()
    choose(2, s)
    syncList(s, 'liked', page(7), 1, 1)
    expect(s.listKey).toBe('liked')
    expect(currentVideo(s)?.id).toBe('p7v0')
  })

  test('leaving the list clears it and hides the footer', () => {
    const s = playing()
    s.queueOpen = true
    clearPlayer(s)
    expect(s.autoplay).toBe(false)
    expect(s.list).toEqual([])
    expect(s.listKey).toBeNull()
    expect(s.queueOpen).toBe(false)
    expect(s.playing).toBe(false)
  })

  test('a video marked watched is marked in the list too', () => {
    const s = playing()
    patchListVideo('p1v1', { watched: '2026-01-01T00:00:00Z' }, s)
    expect(s.list[1]!.watched).toBe('2026-01-01T00:00:00Z')
  })
})

describe('player store: fresh data', () => {
  test('unchanged videos keep their objects; a changed one is replaced', () => {
    const s = createPlayerState()
    setAutoplay(true, s)
    syncList(s, 'feed', page(1), 1, 1)
    const before = [...s.list]
    const fresh = page(1)
    fresh[1] = { ...fresh[1]!, watched: '2026-01-01T00:00:00Z' }
    syncList(s, 'feed', fresh, 1, 1)
    expect(s.list[0]).toBe(before[0]!)
    expect(s.list[2]).toBe(before[2]!)
    expect(s.list[1]!.watched).toBe('2026-01-01T00:00:00Z')
    const same = s.list
    syncList(s, 'feed', page(1).map((v, i) => (i === 1 ? fresh[1]! : v)), 1, 1)
    expect(s.list).toBe(same)
  })
})

describe('listen mode in the store', () => {
  test('the remembered choice is read once per account and survives clearing the list', () => {
    const s = createPlayerState()
    hydrateListen('user-a', true, s)
    expect(s.listen).toBe(true)
    expect(s.listenUser).toBe('user-a')
    // switched off meanwhile: reading the same account again does not undo it
    setListen(false, null, s)
    hydrateListen('user-a', true, s)
    expect(s.listen).toBe(false)
    hydrateListen('user-b', true, s)
    expect(s.listen).toBe(true)
    setAutoplay(true, s)
    syncList(s, 'feed', page(1), 1, 1)
    clearPlayer(s)
    expect(s.listen).toBe(true)
    expect(s.listenUser).toBe('user-b')
  })

  test('switching mode mid-video goes on from where it was', () => {
    const s = playing()
    const session = s.session
    setListen(true, 42.5, s)
    expect(s.listen).toBe(true)
    expect(s.startFrom).toBe(42.5)
    expect(currentVideo(s)!.id).toBe('p1v0')
    // the same video, not started again
    expect(s.session).toBe(session)
    setListen(false, 50, s)
    expect(s.startFrom).toBe(50)
    // before anything played it starts as it would have
    next(s)
    expect(s.startFrom).toBe('saved')
    setListen(true, null, s)
    expect(s.startFrom).toBe('saved')
    // the same mode again changes nothing
    setListen(true, 7, s)
    expect(s.startFrom).toBe('saved')
  })
})
