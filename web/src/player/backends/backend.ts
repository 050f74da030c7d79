/**
 * One interface over the two ways a video plays: YouTube's IFrame Player API,
 * and an HTML5 <video> for videos that carry a direct media URL (the fake
 * YouTube server's clips in demo and test mode).
 */
export type PlayableVideo = { id: string; mediaUrl: string | null }

export interface BackendEvents {
  /** The video can play; it already sits at the start position. */
  onReady(): void
  onPlay(): void
  onPause(): void
  onEnded(): void
  onError(message: string): void
}

export interface PlayerBackend {
  /** Loads a video at `startSeconds`; plays it once ready when `autoplay`. */
  load(video: PlayableVideo, startSeconds: number, autoplay: boolean): void
  play(): void
  pause(): void
  seek(seconds: number): void
  /** Seconds played and total, 0 while unknown. */
  currentTime(): number
  duration(): number
  /**
   * Mutes for a span (a SponsorBlock `mute` segment); `false` gives the sound back as it was
   * before (a player the browser or the viewer had muted stays muted).
   */
  setMuted(muted: boolean): void
  destroy(): void
}

/** `audio`: listen mode's <audio> element (the HTML5 backend with its `audio` option). */
export type BackendKind = 'html5' | 'youtube' | 'audio'

export function backendKindFor(video: PlayableVideo): BackendKind {
  return video.mediaUrl ? 'html5' : 'youtube'
}
