import { type Ref, useEffect, useImperativeHandle, useRef } from 'react'
import { css } from 'styled-system/css'
import { savedStart } from '../api.ts'
import { type BackendEvents, type PlayableVideo, type PlayerBackend, backendKindFor } from '../backends/backend.ts'
import { createHtml5Backend } from '../backends/html5.ts'
import { createYoutubeBackend } from '../backends/youtube.ts'

const hostClass = css({ position: 'relative', width: 'full', height: 'full', bg: 'black', overflow: 'hidden', '& iframe': { width: '100%', height: '100%', border: '0' } })

/** docs/product.md#constants: the player reports progress every 1000 ms. */
export const PROGRESS_INTERVAL_MS = 1000

export type MediaPlayerHandle = {
  seek(seconds: number): void
  /** Seeks relative to the current position (j/l: ±10 s). */
  seekBy(delta: number): void
  currentTime(): number
  duration(): number
  /** Mutes for a span, `false` gives the sound back (PlayerBackend.setMuted; SponsorBlock `mute` segments). */
  setMuted(muted: boolean): void
  /** The id of the video the backend holds ready; null while one loads (its time is not yet the new video's). */
  loadedVideo(): string | null
}

export type MediaPlayerProps = {
  video: PlayableVideo
  /** A new value starts the video again (the same video may be started twice). */
  session?: number | string
  /** 'saved': resume at the position saved on the server once ready; 'zero': from the start; or these seconds. */
  startFrom?: 'saved' | 'zero' | number
  playing: boolean
  onPlayingChange(playing: boolean): void
  onProgress(playedSeconds: number, duration: number): void
  onEnded?(playedSeconds: number, duration: number): void
  onError?(message: string): void
  ref?: Ref<MediaPlayerHandle>
  /** Accessible name of the player area. */
  label?: string
  /** On-screen play/pause, seek and volume controls (the YouTube IFrame always has its own). */
  controls?: boolean
  /**
   * Listen mode (docs/product.md#listen-mode): an <audio> element plays `video.mediaUrl` (the audio
   * route); while that is null (audio still being prepared) nothing is loaded.
   */
  audio?: boolean
}

/**
 * Plays one video through the backend that suits it (HTML5 <video> when the
 * video carries a direct media URL, else YouTube's IFrame player) and reports
 * progress every second. Playing/paused is controlled by `playing`.
 */
export function MediaPlayer({
  video,
  session = 0,
  startFrom = 'saved',
  playing,
  onPlayingChange,
  onProgress,
  onEnded,
  onError,
  ref,
  label = 'Video player',
  controls = false,
  audio = false,
}: MediaPlayerProps) {
  const host = useRef<HTMLDivElement>(null)
  const backend = useRef<PlayerBackend | null>(null)
  const loading = useRef(true)
  // the newest load started and the newest one handed to the backend: a ready in between is an
  // older load's (Next pressed again while the saved position is fetched; docs/decisions/092)
  const started = useRef(0)
  const issued = useRef(0)
  const issuedVideo = useRef<string | null>(null)
  // listen mode waiting for its audio: the element still holds the previous video, which must not play
  const waiting = useRef(false)
  const kind = audio ? 'audio' : backendKindFor(video)

  // the latest props for callbacks fired by the backend
  const latest = useRef({ playing, onPlayingChange, onProgress, onEnded, onError })
  latest.current = { playing, onPlayingChange, onProgress, onEnded, onError }

  const report = () => {
    const b = backend.current
    if (!b || loading.current) return
    latest.current.onProgress(b.currentTime(), b.duration())
  }

  useEffect(() => {
    const events: BackendEvents = {
      onReady: () => {
        if (issued.current !== started.current) return
        loading.current = false
        report()
      },
      // while a video loads, the previous one's play/pause events say nothing about the player
      onPlay: () => !loading.current && latest.current.onPlayingChange(true),
      onPause: () => !loading.current && latest.current.onPlayingChange(false),
      onEnded: () => {
        if (loading.current) return // the previous video, ending while the next one loads
        const b = backend.current
        const d = b?.duration() ?? 0
        latest.current.onProgress(d, d)
        latest.current.onEnded?.(d, d)
      },
      // an older load's error (Next pressed while it loaded) would skip the video being started:
      // dropped like its ready. Before any load was handed to this backend, it is the backend's
      // own (the IFrame API script failed to load) and is passed on (docs/decisions/126).
      onError: (message) => {
        if (issued.current !== 0 && issued.current !== started.current) return
        latest.current.onError?.(message)
      },
    }
    const b =
      kind === 'youtube' ? createYoutubeBackend(host.current!, events) : createHtml5Backend(host.current!, events, { controls, audio: kind === 'audio' })
    backend.current = b
    issued.current = 0 // nothing handed to this backend yet: its errors until then are its own
    return () => {
      backend.current = null
      b.destroy()
    }
  }, [kind, controls])

  useEffect(() => {
    const b = backend.current
    if (!b) return
    let cancelled = false
    const token = ++started.current
    loading.current = true
    b.pause()
    // listen mode with its audio not ready yet: nothing to load until it is
    waiting.current = kind === 'audio' && !video.mediaUrl
    if (waiting.current) return
    const start = typeof startFrom === 'number' ? Promise.resolve(startFrom) : startFrom === 'zero' ? Promise.resolve(0) : savedStart(video.id)
    void start.then((seconds) => {
      if (cancelled) return
      issued.current = token
      issuedVideo.current = video.id
      b.load(video, seconds, latest.current.playing)
    })
    return () => {
      cancelled = true
    }
    // `video` is identified by id and media URL; a new session restarts it
  }, [kind, video.id, video.mediaUrl, session, startFrom])

  useEffect(() => {
    const b = backend.current
    if (!b || waiting.current) return
    if (playing) b.play()
    else b.pause()
  }, [playing])

  useEffect(() => {
    const timer = setInterval(report, PROGRESS_INTERVAL_MS)
    return () => clearInterval(timer)
  }, [])

  // while listen mode waits for its audio, the element holds the previous video: not this one's time
  useImperativeHandle(
    ref,
    () => ({
      seek: (seconds) => {
        if (waiting.current) return
        backend.current?.seek(seconds)
        report()
      },
      seekBy: (delta) => {
        const b = backend.current
        if (!b || waiting.current) return
        const d = b.duration()
        b.seek(Math.max(0, Math.min(b.currentTime() + delta, d > 0 ? d - 0.1 : Infinity)))
        report()
      },
      currentTime: () => (waiting.current ? 0 : (backend.current?.currentTime() ?? 0)),
      duration: () => (waiting.current ? 0 : (backend.current?.duration() ?? 0)),
      setMuted: (muted) => backend.current?.setMuted(muted),
      // null while listen mode waits for its audio: the element still holds the previous video
      loadedVideo: () => (backend.current && !loading.current && !waiting.current ? issuedVideo.current : null),
    }),
    [],
  )

  return <div ref={host} role="region" aria-label={label} data-backend={kind} className={hostClass} />
}
