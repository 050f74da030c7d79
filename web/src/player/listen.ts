/**
 * Pure rules of listen mode (docs/product.md#listen-mode, docs/decisions/194): where the choice is
 * remembered, which audio is prepared ahead, and what the player says while audio is prepared.
 */

/** What POST /api/youtube/videos/{id}/audio answers. */
export type AudioState = 'fetching' | 'ready' | 'failed'
export type AudioStatus = { state: AudioState; error: string | null }

/** docs/decisions/194: remembered per user and device, in localStorage under the account's id. */
export const listenStorageKey = (userId: string) => `tunefeed:listen:${userId}`

type Readable = Pick<Storage, 'getItem'>
type Writable = Pick<Storage, 'setItem' | 'removeItem'>

/** The remembered choice; off when nothing (or something unreadable) is stored, or no one is signed in. */
export function readListen(storage: Readable | null | undefined, userId: string | null | undefined): boolean {
  if (!storage || !userId) return false
  try {
    return storage.getItem(listenStorageKey(userId)) === 'on'
  } catch {
    // storage refused (private mode, a blocked origin)
    return false
  }
}

/** Remembers the choice; off is the default, so it is stored as no entry. */
export function writeListen(storage: Writable | null | undefined, userId: string | null | undefined, on: boolean): void {
  if (!storage || !userId) return
  try {
    if (on) storage.setItem(listenStorageKey(userId), 'on')
    else storage.removeItem(listenStorageKey(userId))
  } catch {
    // full or refused: the switch still works for this visit
  }
}

/** The audio route a video plays from in listen mode. */
export const audioSrc = (videoId: string) => `/api/youtube/videos/${encodeURIComponent(videoId)}/audio`

/**
 * docs/decisions/194, 310: while audio is being fetched, the channel socket says when it is ready;
 * the player still asks again, every 5 s while the socket is open (in case a message is lost) and
 * every second while it is not.
 */
export const AUDIO_POLL_MS = 1000
export const AUDIO_FALLBACK_POLL_MS = 5000

export function audioPollInterval(status: AudioStatus | undefined, socketOpen = false): number | false {
  if (status?.state !== 'fetching') return false
  return socketOpen ? AUDIO_FALLBACK_POLL_MS : AUDIO_POLL_MS
}

/** A readiness message of the channel socket (`{videoId, audio: {state, error}}`), or null for any other. */
export function audioPushMessage(message: unknown): { videoId: string; audio: AudioStatus } | null {
  if (!message || typeof message !== 'object') return null
  const { videoId, audio } = message as { videoId?: unknown; audio?: { state?: unknown; error?: unknown } }
  if (typeof videoId !== 'string' || !audio || typeof audio !== 'object') return null
  if (audio.state !== 'ready' && audio.state !== 'failed' && audio.state !== 'fetching') return null
  return { videoId, audio: { state: audio.state, error: typeof audio.error === 'string' ? audio.error : null } }
}

/**
 * The video whose audio is prepared while the current one plays: the next one on this page. Past the
 * page's end the next page is not loaded yet, so nothing is prepared there (its first video
 * is prepared once that page arrives and it plays).
 */
export function nextToPrepare(list: readonly { id: string }[], index: number): string | null {
  const next = list[index + 1]
  return next && next.id !== list[index]?.id ? next.id : null
}

export const PREPARING_TEXT = 'Preparing audio…'

/** What the player says about the current video's audio: nothing once it plays. */
export type ListenNotice = { kind: 'none' } | { kind: 'preparing'; text: string } | { kind: 'failed'; text: string }

export function listenNotice(listen: boolean, status: AudioStatus | undefined, requestError: string | null = null): ListenNotice {
  if (!listen) return { kind: 'none' }
  if (requestError) return { kind: 'failed', text: requestError }
  if (!status || status.state === 'fetching') return { kind: 'preparing', text: PREPARING_TEXT }
  if (status.state === 'failed') return { kind: 'failed', text: status.error || 'The audio could not be fetched. Skip to the next video or watch this one instead.' }
  return { kind: 'none' }
}
