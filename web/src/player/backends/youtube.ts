import type { BackendEvents, PlayableVideo, PlayerBackend } from './backend.ts'

// The few parts of the IFrame Player API used here
// (https://developers.google.com/youtube/iframe_api_reference).
type YTPlayer = {
  loadVideoById(o: { videoId: string; startSeconds?: number }): void
  cueVideoById(o: { videoId: string; startSeconds?: number }): void
  playVideo(): void
  pauseVideo(): void
  seekTo(seconds: number, allowSeekAhead: boolean): void
  getCurrentTime(): number
  getDuration(): number
  destroy(): void
}
type YTNamespace = {
  Player: new (
    el: HTMLElement,
    opts: {
      width?: string
      height?: string
      playerVars?: Record<string, string | number>
      events?: {
        onReady?: () => void
        onStateChange?: (e: { data: number }) => void
        onError?: (e: { data: number }) => void
      }
    },
  ) => YTPlayer
}

declare global {
  interface Window {
    YT?: YTNamespace
    onYouTubeIframeAPIReady?: () => void
  }
}

const ENDED = 0
const PLAYING = 1
const PAUSED = 2
const CUED = 5

/** The player's error codes (onError's `data`) in words. */
export function errorMessage(code: number): string {
  if (code === 100) return 'This video was removed or is private'
  if (code === 101 || code === 150) return 'The owner does not allow playing this video here'
  return 'Video could not be loaded'
}

let apiPromise: Promise<YTNamespace> | null = null

/**
 * Loads the IFrame Player API once, only when a YouTube video is played: `/iframe_api`
 * redirects to the server's YOUTUBE_IFRAME_API_URL (https://www.youtube.com/iframe_api).
 */
function loadApi(): Promise<YTNamespace> {
  if (window.YT?.Player) return Promise.resolve(window.YT)
  apiPromise ??= new Promise<YTNamespace>((resolve, reject) => {
    const before = window.onYouTubeIframeAPIReady
    window.onYouTubeIframeAPIReady = () => {
      before?.()
      resolve(window.YT!)
    }
    const script = document.createElement('script')
    script.src = '/iframe_api'
    script.async = true
    script.onerror = () => {
      apiPromise = null
      script.remove()
      reject(new Error('The YouTube player could not be loaded'))
    }
    document.head.appendChild(script)
  })
  return apiPromise
}

/** YouTube IFrame backend: one player for the backend's life, videos loaded into it. */
export function createYoutubeBackend(host: HTMLElement, events: BackendEvents): PlayerBackend {
  const mount = document.createElement('div')
  host.appendChild(mount)
  let player: YTPlayer | null = null
  let ready = false
  let destroyed = false
  let pending: { video: PlayableVideo; start: number; autoplay: boolean } | null = null
  let awaitingReady = false

  const doLoad = (p: { video: PlayableVideo; start: number; autoplay: boolean }) => {
    awaitingReady = true
    const args = { videoId: p.video.id, startSeconds: p.start }
    if (p.autoplay) player!.loadVideoById(args)
    else player!.cueVideoById(args)
  }

  loadApi()
    .then((YT) => {
      if (destroyed) return
      player = new YT.Player(mount, {
        width: '100%',
        height: '100%',
        playerVars: { playsinline: 1, rel: 0, origin: window.location.origin },
        events: {
          onReady: () => {
            ready = true
            if (pending) doLoad(pending)
            pending = null
          },
          onStateChange: ({ data }) => {
            if (awaitingReady && (data === PLAYING || data === CUED)) {
              awaitingReady = false
              events.onReady()
            }
            if (data === PLAYING) events.onPlay()
            else if (data === PAUSED) events.onPause()
            else if (data === ENDED) events.onEnded()
          },
          onError: ({ data }) => {
            awaitingReady = false
            events.onError(errorMessage(data))
          },
        },
      })
    })
    .catch((err: Error) => events.onError(err.message))

  return {
    load(video, startSeconds, autoplay) {
      const p = { video, start: startSeconds, autoplay }
      if (player && ready) doLoad(p)
      else pending = p
    },
    play: () => {
      if (player && ready) player.playVideo()
      else if (pending) pending.autoplay = true
    },
    pause: () => {
      if (player && ready) player.pauseVideo()
      else if (pending) pending.autoplay = false
    },
    seek: (seconds) => {
      if (player && ready) player.seekTo(seconds, true)
      else if (pending) pending.start = seconds
    },
    currentTime: () => (player && ready ? player.getCurrentTime() || 0 : 0),
    duration: () => (player && ready ? player.getDuration() || 0 : 0),
    destroy() {
      destroyed = true
      try {
        player?.destroy()
      } catch {
        // already gone with its iframe
      }
      player = null
      mount.remove()
      host.replaceChildren()
    },
  }
}
