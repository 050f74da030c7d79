import { useCallback, useEffect, useRef } from 'react'
import { markWatched, saveProgress } from './api.ts'
import { shouldMarkWatched } from './logic.ts'

/** How often the position is saved while playing (also on pause, on leaving a video, on unload). */
export const SAVE_EVERY_MS = 10_000

export type TrackingOptions = {
  video: { id: string; watched: string | null } | undefined
  /** Changes whenever the video is started again. */
  session?: number | string
  playedSeconds: number
  duration: number
  playing: boolean
  /** The watch call succeeded. */
  onWatched?(id: string): void
}

/**
 * What playback reports to the server: the watch call once playback passes
 * 20 s of an unwatched video (docs/product.md#video-marks), and the position, so the video
 * resumes there later, on this device or another.
 */
export function usePlaybackTracking({ video, session = 0, playedSeconds, duration, playing, onWatched }: TrackingOptions) {
  const id = video?.id
  const pos = useRef({ id: undefined as string | undefined, played: 0, duration: 0, saved: -1 })
  const sent = useRef(new Set<string>())
  const watchedCb = useRef(onWatched)
  watchedCb.current = onWatched

  const flush = useCallback((keepalive = false) => {
    const p = pos.current
    if (!p.id || p.duration <= 0 || Math.abs(p.played - p.saved) < 1) return
    p.saved = p.played
    void saveProgress(p.id, p.played, p.duration, { keepalive })
  }, [])

  // a new video (or the same one started again): save where the last one stopped
  useEffect(() => {
    pos.current = { id, played: 0, duration: 0, saved: -1 }
    return () => flush()
  }, [id, session, flush])

  useEffect(() => {
    if (playedSeconds > 0 || duration > 0) Object.assign(pos.current, { played: playedSeconds, duration })
  }, [playedSeconds, duration])

  useEffect(() => {
    if (!playing) {
      flush()
      return
    }
    const timer = setInterval(() => flush(), SAVE_EVERY_MS)
    return () => clearInterval(timer)
  }, [playing, flush])

  useEffect(() => {
    const onHide = () => flush(true)
    window.addEventListener('pagehide', onHide)
    return () => window.removeEventListener('pagehide', onHide)
  }, [flush])

  const watched = video?.watched
  const maybeMarkWatched = useCallback((videoId: string | undefined, isWatched: string | null | undefined, played: number) => {
    if (!videoId || sent.current.has(videoId) || !shouldMarkWatched(played, isWatched)) return
    sent.current.add(videoId)
    void markWatched(videoId).then((ok) => ok && watchedCb.current?.(videoId))
  }, [])

  useEffect(() => maybeMarkWatched(id, watched, playedSeconds), [id, watched, playedSeconds, maybeMarkWatched])

  /**
   * The video ended: remember it as played to the end (it starts from 0 next
   * time) and count it watched if it ran past 20 s, even when no progress
   * report fell after the 20th second (fast playback, a seek to the end).
   */
  const ended = useCallback(
    (played: number, total: number) => {
      Object.assign(pos.current, { played, duration: total })
      flush()
      maybeMarkWatched(id, watched, played)
    },
    [flush, maybeMarkWatched, id, watched],
  )
  return { ended, flush }
}
