import { useEffect, useRef } from 'react'

export type MediaSessionOptions = {
  video: { title: string; thumbnail: string; channel: { title: string } } | undefined
  playing: boolean
  playedSeconds: number
  duration: number
  actions: {
    play(): void
    pause(): void
    seekTo(seconds: number): void
    seekBy(seconds: number): void
    next?(): void
    previous?(): void
  }
}

/**
 * The Media Session API: title, channel and artwork on the lock screen and in
 * the browser's media controls; play/pause/next/previous from media keys.
 */
export function useMediaSession({ video, playing, playedSeconds, duration, actions }: MediaSessionOptions) {
  const latest = useRef(actions)
  latest.current = actions
  const supported = typeof navigator !== 'undefined' && 'mediaSession' in navigator
  const hasNext = !!actions.next
  const hasPrevious = !!actions.previous

  useEffect(() => {
    if (!supported) return
    const ms = navigator.mediaSession
    const set = (action: MediaSessionAction, handler: MediaSessionActionHandler | null) => {
      try {
        ms.setActionHandler(action, handler)
      } catch {
        // an action this browser does not know
      }
    }
    set('play', () => latest.current.play())
    set('pause', () => latest.current.pause())
    set('seekbackward', (d) => latest.current.seekBy(-(d.seekOffset ?? 10)))
    set('seekforward', (d) => latest.current.seekBy(d.seekOffset ?? 10))
    set('seekto', (d) => d.seekTime !== undefined && latest.current.seekTo(d.seekTime))
    set('nexttrack', hasNext ? () => latest.current.next?.() : null)
    set('previoustrack', hasPrevious ? () => latest.current.previous?.() : null)
    return () => {
      for (const a of ['play', 'pause', 'seekbackward', 'seekforward', 'seekto', 'nexttrack', 'previoustrack'] as const) set(a, null)
      ms.metadata = null
      ms.playbackState = 'none'
    }
  }, [supported, hasNext, hasPrevious])

  useEffect(() => {
    if (!supported || !video || typeof MediaMetadata === 'undefined') return
    navigator.mediaSession.metadata = new MediaMetadata({
      title: video.title,
      artist: video.channel.title,
      artwork: [{ src: video.thumbnail, sizes: '480x360' }],
    })
  }, [supported, video?.title, video?.channel.title, video?.thumbnail])

  useEffect(() => {
    if (supported) navigator.mediaSession.playbackState = playing ? 'playing' : 'paused'
  }, [supported, playing])

  useEffect(() => {
    if (!supported || !(duration > 0) || typeof navigator.mediaSession.setPositionState !== 'function') return
    try {
      navigator.mediaSession.setPositionState({ duration, position: Math.min(playedSeconds, duration), playbackRate: 1 })
    } catch {
      // position out of range while a video switches
    }
  }, [supported, playedSeconds, duration])
}
