import { proxy } from 'valtio'
import { arrivalIndex, step } from './logic.ts'

/** What the player needs of a video (the video list's items carry more). */
export type PlayerVideo = {
  id: string
  title: string
  thumbnail: string
  channel: { id: string; title: string; thumbnail: string }
  /** Direct media file (demo and tests): played by the HTML5 backend, else YouTube's player. */
  mediaUrl: string | null
  watched: string | null
  /** The kept file's address when the user keeps this video and it is stored: listen mode plays it, no fetch. */
  keptFile?: string | null
}

export type PageRequest = { page: number; at: 'first' | 'last' }
export type StartFrom = 'saved' | 'zero' | number

export function createPlayerState() {
  return {
    /** Footer player visible and playing the list back to back. */
    autoplay: false,
    /** Identity of the list being played (its filters); another key is another list. */
    listKey: null as string | null,
    /** The page of the list being played. */
    list: [] as PlayerVideo[],
    page: 1,
    totalPages: 1,
    index: 0,
    playing: false,
    progress: { playedSeconds: 0, duration: 0 },
    queueOpen: false,
    shortcutsOpen: false,
    /**
     * Where the current item starts: its saved position, 0 (chosen in the queue panel), or these
     * seconds (where it was when listen mode was switched: docs/product.md#listen-mode).
     */
    startFrom: 'saved' as StartFrom,
    /** Changes whenever an item is started, so the same video can be started again. */
    session: 0,
    /** A page the list must load for the player (index moved past either end of this page). */
    pageRequest: null as PageRequest | null,
    /** Listen mode: the queue plays as audio through an <audio> element (docs/product.md#listen-mode). */
    listen: false,
    /** The account whose remembered listen choice `listen` holds (null until read). */
    listenUser: null as string | null,
  }
}

export type PlayerState = ReturnType<typeof createPlayerState>

/**
 * Autoplay player state (valtio; server data stays in TanStack Query). The
 * app shell reads `autoplay` to show the 100 px footer. Every action takes the
 * state first, so tests run them on a plain object.
 */
export const playerStore = proxy(createPlayerState())

export function currentVideo(s: { readonly list: readonly PlayerVideo[]; readonly index: number }): PlayerVideo | undefined {
  return s.list[s.index]
}

function start(s: PlayerState, index: number, from: 'saved' | 'zero') {
  s.index = index
  s.startFrom = from
  s.session += 1
  s.progress = { playedSeconds: 0, duration: 0 }
}

/** Clears the list and everything about it; leaves the footer shown or not as it was. */
function clear(s: PlayerState) {
  const fresh = createPlayerState()
  Object.assign(s, { ...fresh, autoplay: s.autoplay, session: s.session + 1, listen: s.listen, listenUser: s.listenUser })
}

/** Turns autoplay on (the list fills it in) or off (clears the list). */
export function setAutoplay(on: boolean, s: PlayerState = playerStore) {
  if (on === s.autoplay) return
  clear(s)
  s.autoplay = on
  s.playing = on
}

/** Leaving the list clears it (docs/product.md#autoplay) and hides the footer. */
export function clearPlayer(s: PlayerState = playerStore) {
  clear(s)
  s.autoplay = false
}

/**
 * Called by the list whenever its data for `page` arrives or changes. A page
 * the player asked for starts at its first or last item; another list or page
 * starts at 0; fresh data of the same page keeps the current video.
 */
export function syncList(s: PlayerState, key: string, videos: PlayerVideo[], page: number, totalPages: number) {
  const request = s.pageRequest
  const sameList = s.listKey === key
  if (sameList && request && request.page === page) {
    Object.assign(s, { list: videos, page, totalPages, pageRequest: null, playing: true })
    start(s, arrivalIndex(request.at, videos.length), 'saved')
    return
  }
  if (!sameList || page !== s.page) {
    Object.assign(s, { listKey: key, list: videos, page, totalPages, pageRequest: null })
    start(s, 0, 'saved')
    return
  }
  const currentId = s.list[s.index]?.id
  const found = videos.findIndex((v) => v.id === currentId)
  // unchanged videos keep their objects, so the queue list re-renders only what changed
  const merged = videos.map((v) => s.list.find((old) => sameVideo(old, v)) ?? v)
  if (merged.length !== s.list.length || merged.some((v, i) => v !== s.list[i])) s.list = merged
  s.totalPages = totalPages
  if (found >= 0) s.index = found
  else start(s, Math.min(s.index, Math.max(0, videos.length - 1)), 'saved')
}

function sameVideo(a: PlayerVideo, b: PlayerVideo): boolean {
  return (
    a.id === b.id &&
    a.title === b.title &&
    a.thumbnail === b.thumbnail &&
    a.mediaUrl === b.mediaUrl &&
    (a.keptFile ?? null) === (b.keptFile ?? null) &&
    a.watched === b.watched &&
    a.channel.id === b.channel.id &&
    a.channel.title === b.channel.title &&
    a.channel.thumbnail === b.channel.thumbnail
  )
}

function move(s: PlayerState, delta: 1 | -1): boolean {
  const result = step({ index: s.index, length: s.list.length, page: s.page, totalPages: s.totalPages }, delta)
  if (result.kind === 'index') {
    start(s, result.index, 'saved')
    s.playing = true
    return true
  }
  if (result.kind === 'page') {
    s.pageRequest = { page: result.page, at: result.at }
    return true
  }
  return false
}

export function next(s: PlayerState = playerStore) {
  move(s, 1)
}

/** Previous item; at the very first one, starts it again from 0. */
export function previous(s: PlayerState = playerStore) {
  if (!move(s, -1)) start(s, s.index, 'zero')
}

/** The current video ended: on to the next one, or stop after the last. */
export function ended(s: PlayerState = playerStore) {
  if (!move(s, 1)) s.playing = false
}

/** Chosen in the queue panel: becomes current and starts from 0 (docs/product.md#autoplay). */
export function choose(index: number, s: PlayerState = playerStore) {
  if (index < 0 || index >= s.list.length) return
  start(s, index, 'zero')
  s.playing = true
}

export function setPlaying(playing: boolean, s: PlayerState = playerStore) {
  s.playing = playing
}

export function togglePlaying(s: PlayerState = playerStore) {
  s.playing = !s.playing
}

export function setProgress(playedSeconds: number, duration: number, s: PlayerState = playerStore) {
  if (s.progress.playedSeconds === playedSeconds && s.progress.duration === duration) return
  s.progress = { playedSeconds, duration }
}

export function setQueueOpen(open: boolean, s: PlayerState = playerStore) {
  s.queueOpen = open
}

export function setShortcutsOpen(open: boolean, s: PlayerState = playerStore) {
  s.shortcutsOpen = open
}

/** A mark changed elsewhere (e.g. watched): keep the list's copy in step. */
export function patchListVideo(id: string, patch: Partial<PlayerVideo>, s: PlayerState = playerStore) {
  const i = s.list.findIndex((v) => v.id === id)
  if (i >= 0) s.list[i] = { ...s.list[i]!, ...patch }
}

/** The remembered listen choice of `userId` (read from this device), unless already read for that account. */
export function hydrateListen(userId: string, on: boolean, s: PlayerState = playerStore) {
  if (s.listenUser === userId) return
  s.listenUser = userId
  s.listen = on
}

/**
 * Listen mode on or off. `at`: where the current video stands (seconds), so it goes on from there in
 * the other mode; null when nothing played yet (it then starts as it would have).
 */
export function setListen(on: boolean, at: number | null, s: PlayerState = playerStore) {
  if (on === s.listen) return
  s.listen = on
  if (at !== null && Number.isFinite(at) && s.list[s.index]) s.startFrom = Math.max(0, at)
}
