/**
 * Pure rules of the autoplay player (docs/product.md#autoplay), kept apart from the store so
 * they can be tested without a browser.
 */

/** Where the player stands in a paginated list. */
export type ListPosition = { index: number; length: number; page: number; totalPages: number }

/** Moving the index: within the page, to another page (first or last item there), or nowhere. */
export type Step =
  | { kind: 'index'; index: number }
  | { kind: 'page'; page: number; at: 'first' | 'last' }
  | { kind: 'none' }

/**
 * docs/product.md#autoplay: previous/next change the index by one; past the page's last item
 * the next page loads at index 0; below 0 the previous page loads at its
 * last item. Nothing happens past the very first or very last video.
 */
export function step(pos: ListPosition, delta: 1 | -1): Step {
  const target = pos.index + delta
  if (target >= 0 && target < pos.length) return { kind: 'index', index: target }
  if (target >= pos.length && pos.page < pos.totalPages) return { kind: 'page', page: pos.page + 1, at: 'first' }
  if (target < 0 && pos.page > 1) return { kind: 'page', page: pos.page - 1, at: 'last' }
  return { kind: 'none' }
}

/** The index a freshly loaded page starts at. */
export function arrivalIndex(at: 'first' | 'last', length: number): number {
  return at === 'last' ? Math.max(0, length - 1) : 0
}

/** docs/product.md#video-marks: a video counts as watched once playback passes 20 s. */
export const WATCHED_AFTER_SECONDS = 20

export function shouldMarkWatched(playedSeconds: number, watched: string | null | undefined): boolean {
  return !watched && playedSeconds > WATCHED_AFTER_SECONDS
}

/**
 * Where a video resumes: its saved position, unless that is too close to
 * the start to matter or so close to the end that it would end at once.
 */
export function resumePosition(saved: { playedSeconds: number; duration: number } | null | undefined): number {
  if (!saved || !Number.isFinite(saved.playedSeconds) || saved.playedSeconds < 3) return 0
  if (saved.duration > 0 && saved.playedSeconds > saved.duration - 5) return 0
  return Math.floor(saved.playedSeconds)
}

/** 0:00, 3:25, 1:02:03. */
export function formatTime(seconds: number): string {
  const s = Math.max(0, Math.floor(Number.isFinite(seconds) ? seconds : 0))
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const sec = String(s % 60).padStart(2, '0')
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`
}

/** Played share in percent, 0 to 100 (docs/product.md#autoplay-player: the slider runs from 0 to 100). */
export function percentPlayed(playedSeconds: number, duration: number): number {
  if (!(duration > 0)) return 0
  return Math.min(100, Math.max(0, (playedSeconds / duration) * 100))
}

/** Seconds one arrow key moves the slider (its 0.1 % step is for pointers). */
export const ARROW_SECONDS = 5

/** The percent an arrow key leads to: ±5 s, within 0-100. */
export function arrowTarget(percent: number, duration: number, key: string): number | undefined {
  const dir = key === 'ArrowRight' || key === 'ArrowUp' ? 1 : key === 'ArrowLeft' || key === 'ArrowDown' ? -1 : 0
  if (dir === 0 || duration <= 0) return undefined
  return Math.min(100, Math.max(0, percent + (dir * ARROW_SECONDS * 100) / duration))
}
