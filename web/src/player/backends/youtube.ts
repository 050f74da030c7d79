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
  getPlayerState(): number
  mute(): void
  unMute(): void
  isMuted(): boolean
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

const UNSTARTED = -1
const ENDED = 0
const PLAYING = 1
const PAUSED = 2
const BUFFERING = 3
const CUED = 5

/** Quiet time after a state change before a load meant to play is checked (docs/decisions/092). */
export const SETTLE_MS = 1000
/** How often a load meant to play that settled paused gets `playVideo` again. */
export const PLAY_RETRIES = 3

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

/** One load: what the app asked for, and what the player has shown of it so far. */
type Load = { video: PlayableVideo; start: number; autoplay: boolean }
type Current = Load & {
  /** The player switched to this load (UNSTARTED, BUFFERING or CUED since it was issued). */
  begun: boolean
  ready: boolean
  /** PLAYING seen since the load or the app's last play(): a PAUSED after it is the viewer's. */
  played: boolean
  retries: number
}

/**
 * YouTube IFrame backend: one player for the backend's life, videos loaded into it.
 *
 * Two loads a few milliseconds apart (Next pressed twice) race in the embed: the first load's
 * PLAYING/PAUSED/ENDED can arrive after the second was issued, and the second can settle paused
 * (docs/decisions/092). So states seen before the newest load begins (UNSTARTED, BUFFERING or
 * CUED; or SETTLE_MS of quiet) belong to a superseded load and are ignored, and a load meant to
 * play that settles in another state (CUED, UNSTARTED, or PAUSED before it ever played) with no
 * pause from the app gets `playVideo` again, up to PLAY_RETRIES times; not a PAUSED while the
 * viewer's focus is in the embed (their own click: docs/decisions/125).
 */
export function createYoutubeBackend(host: HTMLElement, events: BackendEvents): PlayerBackend {
  const mount = document.createElement('div')
  host.appendChild(mount)
  let player: YTPlayer | null = null
  let ready = false
  let destroyed = false
  let pending: Load | null = null
  let current: Current | null = null
  let settleTimer: ReturnType<typeof setTimeout> | undefined
  /** The embed's muted state before setMuted(true), or null while not muted by it. */
  let mutedBefore: boolean | null = null

  /** The viewer's focus is in the player's iframe: a click into the embed moves it there (docs/decisions/125). */
  const embedFocused = () => {
    const el = document.activeElement
    return el != null && el.tagName === 'IFRAME' && host.contains(el)
  }

  const doLoad = (p: Load) => {
    current = { ...p, begun: false, ready: false, played: false, retries: 0 }
    const args = { videoId: p.video.id, startSeconds: p.start }
    if (p.autoplay) player!.loadVideoById(args)
    else player!.cueVideoById(args)
    armSettle()
  }

  /** A state of the newest load: ready once it plays or is cued, then play/pause/ended. */
  const deliver = (c: Current, data: number) => {
    if (!c.ready && (data === PLAYING || data === CUED)) {
      c.ready = true
      events.onReady()
    }
    if (data === PLAYING) {
      c.played = true
      events.onPlay()
    } else if (data === PAUSED) events.onPause()
    else if (data === ENDED) events.onEnded()
  }

  const settle = () => {
    const c = current
    if (!player || !c || destroyed) return
    const state = player.getPlayerState()
    if (!c.begun) {
      // quiet since the load was issued: whatever the player shows now is this load's
      // (a cue after a cue may say nothing); it gets SETTLE_MS more before any retry
      c.begun = true
      deliver(c, state)
      armSettle()
      return
    }
    // a PAUSED after it played, or while the viewer's focus is in the embed (they clicked into it,
    // e.g. on its pause button while it first buffered), is the viewer's own: left alone
    const playing = state === PLAYING || state === BUFFERING || state === ENDED || (state === PAUSED && (c.played || embedFocused()))
    if (c.autoplay && !playing && c.retries < PLAY_RETRIES) {
      c.retries++
      player.playVideo()
      armSettle()
    }
  }

  const armSettle = () => {
    clearTimeout(settleTimer)
    const c = current
    if (c && (!c.begun || (c.autoplay && c.retries < PLAY_RETRIES))) settleTimer = setTimeout(settle, SETTLE_MS)
  }

  const onStateChange = (data: number) => {
    const c = current
    if (!c) return
    if (!c.begun) {
      // the superseded load's states, until this one shows it has begun
      if (data !== UNSTARTED && data !== BUFFERING && data !== CUED) return
      c.begun = true
    }
    deliver(c, data)
    armSettle()
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
          onStateChange: ({ data }) => onStateChange(data),
          onError: ({ data }) => {
            if (current) Object.assign(current, { ready: true, autoplay: false })
            clearTimeout(settleTimer)
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
      if (player && ready) {
        // a play from the app: until it plays, a PAUSED is not the viewer's
        if (current) Object.assign(current, { autoplay: true, played: false, retries: 0 })
        player.playVideo()
        armSettle()
      } else if (pending) pending.autoplay = true
    },
    pause: () => {
      if (player && ready) {
        // a pause from the app: the load is no longer meant to play
        if (current) current.autoplay = false
        clearTimeout(settleTimer)
        player.pauseVideo()
      } else if (pending) pending.autoplay = false
    },
    seek: (seconds) => {
      if (player && ready) player.seekTo(seconds, true)
      else if (pending) pending.start = seconds
    },
    currentTime: () => (player && ready ? player.getCurrentTime() || 0 : 0),
    duration: () => (player && ready ? player.getDuration() || 0 : 0),
    setMuted(muted) {
      if (!player || !ready) return
      if (muted) {
        mutedBefore ??= player.isMuted()
        player.mute()
      } else if (mutedBefore !== null) {
        if (!mutedBefore) player.unMute()
        mutedBefore = null
      }
    },
    destroy() {
      destroyed = true
      clearTimeout(settleTimer)
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
