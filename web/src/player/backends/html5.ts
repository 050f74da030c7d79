import type { BackendEvents, PlayableVideo, PlayerBackend } from './backend.ts'

/**
 * HTML5 media backend: one element for the player's life, its `src` swapped per video.
 * `controls`: the browser's own play/pause, seek and volume for touch and pointer (the video page).
 * `audio`: an <audio> element (listen mode, docs/product.md#listen-mode): it keeps playing with the
 * screen locked, and keeping one element for the whole queue lets mobile browsers go on to the next
 * video without a new tap.
 */
export function createHtml5Backend(host: HTMLElement, events: BackendEvents, { controls = false, audio = false } = {}): PlayerBackend {
  const el = document.createElement(audio ? 'audio' : 'video')
  if (el instanceof HTMLVideoElement) el.playsInline = true
  el.controls = controls
  el.preload = 'auto'
  el.setAttribute('data-player', 'html5')
  el.style.width = '100%'
  el.style.height = '100%'
  el.style.objectFit = 'contain'
  el.style.background = 'black'
  host.appendChild(el)

  let startAt = 0
  let autoplay = false
  let loading = false
  /** The element's own muted state before setMuted(true), or null while not muted by it. */
  let mutedBefore: boolean | null = null

  const tryPlay = () => {
    el.play().catch((err: unknown) => {
      // a browser that refuses sound without a gesture still plays a video muted (not audio: silence is no use)
      if (err instanceof DOMException && err.name === 'NotAllowedError' && !el.muted && !audio) {
        el.muted = true
        el.play().catch(() => events.onPause())
      } else if (!(err instanceof DOMException && err.name === 'AbortError')) events.onPause()
    })
  }

  const onMeta = () => {
    if (!loading) return
    loading = false
    if (startAt > 0 && (!Number.isFinite(el.duration) || startAt < el.duration)) el.currentTime = startAt
    events.onReady()
    if (autoplay) tryPlay()
  }
  const onPlay = () => events.onPlay()
  const onPause = () => {
    if (!el.ended) events.onPause()
  }
  const onEnded = () => events.onEnded()
  const onError = () => {
    if (el.getAttribute('src')) events.onError(audio ? 'Audio could not be loaded' : 'Video could not be loaded')
  }
  el.addEventListener('loadedmetadata', onMeta)
  el.addEventListener('play', onPlay)
  el.addEventListener('pause', onPause)
  el.addEventListener('ended', onEnded)
  el.addEventListener('error', onError)

  return {
    load(video: PlayableVideo, startSeconds: number, play: boolean) {
      startAt = startSeconds
      autoplay = play
      loading = true
      el.src = video.mediaUrl ?? ''
      el.load()
    },
    play: () => {
      if (loading) autoplay = true
      else tryPlay()
    },
    pause: () => {
      autoplay = false
      el.pause()
    },
    seek(seconds: number) {
      if (loading) startAt = seconds
      else el.currentTime = Math.max(0, Math.min(seconds, Number.isFinite(el.duration) ? el.duration : seconds))
    },
    currentTime: () => el.currentTime || 0,
    duration: () => (Number.isFinite(el.duration) ? el.duration : 0),
    setMuted(muted: boolean) {
      if (muted) {
        mutedBefore ??= el.muted
        el.muted = true
      } else if (mutedBefore !== null) {
        el.muted = mutedBefore
        mutedBefore = null
      }
    },
    destroy() {
      el.removeEventListener('loadedmetadata', onMeta)
      el.removeEventListener('play', onPlay)
      el.removeEventListener('pause', onPause)
      el.removeEventListener('ended', onEnded)
      el.removeEventListener('error', onError)
      el.pause()
      el.removeAttribute('src')
      el.load()
      el.remove()
    },
  }
}
