import { useQuery } from '@tanstack/react-query'
import { type RefObject, useCallback, useEffect, useRef, useState } from 'react'
import type { MediaPlayerHandle } from './components/media-player.tsx'
import { formatTime } from './logic.ts'
import { estimateTime, newMemory, POLL_MS, type Segment, segmentPhrase, segmentStep, skipNoticeText } from './segments.ts'
import { segmentsQuery, sponsorblockQuery } from './sponsorblock-api.ts'

/** What the player's SponsorBlock part needs of the player: its handle (any backend, the IFrame or an HTML5 element). */
export type SegmentPlayer = Pick<MediaPlayerHandle, 'currentTime' | 'seek' | 'setMuted' | 'loadedVideo'>

export type SegmentNotice = {
  /** Grows with each notice, so the same words said twice are said again. */
  key: number
  text: string
  /** The skipped segment, while Go back is offered. */
  segment?: Segment
}

export const UNAVAILABLE_TEXT = 'SponsorBlock could not be reached, so no segments are skipped in this video.'

/**
 * SponsorBlock in the player (docs/product.md#sponsorblock): the current video's segments, and
 * while it plays a look at the player's time every POLL_MS (the IFrame API has no time events)
 * that skips `skip` segments (once per play-through: `session` or another video starts a new
 * one), mutes `mute` ones for their span, and leaves a notice with Go back. Works through the
 * player's handle, so every backend gets it.
 */
export function useSegmentActions(
  videoId: string | undefined,
  player: RefObject<SegmentPlayer | null>,
  { playing, session = 0 }: { playing: boolean; session?: number | string },
) {
  const settings = useQuery(sponsorblockQuery)
  // nothing is asked while every category is off (the lookup would be for nothing)
  const wanted = settings.data ? Object.values(settings.data.categories).some((a) => a !== 'off') : settings.isError
  const query = useQuery({ ...segmentsQuery(videoId ?? ''), enabled: !!videoId && wanted })
  const segments = (videoId && wanted && query.data?.segments) || NONE
  const unavailable = !!(wanted && query.data?.unavailable)

  const [notice, setNotice] = useState<SegmentNotice | null>(null)
  const memory = useRef(newMemory())
  const counter = useRef(0)
  const say = useCallback((text: string, segment?: Segment) => setNotice({ key: ++counter.current, text, segment }), [])

  // a new play-through: nothing skipped yet; the sound given back if a mute segment held it
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new video or session is what starts one
  useEffect(() => {
    memory.current = newMemory()
    setNotice(null)
    return () => {
      if (memory.current.muted) player.current?.setMuted(false)
      memory.current = newMemory()
    }
  }, [videoId, session])

  // SponsorBlock down: said once per player, not for every video of a queue
  const toldUnavailable = useRef(false)
  useEffect(() => {
    if (unavailable && !toldUnavailable.current) {
      toldUnavailable.current = true
      say(UNAVAILABLE_TEXT)
    }
  }, [unavailable, say])

  const active = segments.some((s) => s.actionType === 'skip' || s.actionType === 'mute')
  useEffect(() => {
    if (!playing || !videoId || !active) return
    let wake: ReturnType<typeof setTimeout> | undefined
    let last = { t: 0, at: 0 }
    const look = (woken: boolean) => {
      const p = player.current
      if (!p || p.loadedVideo() !== videoId) return
      const reading = p.currentTime()
      const t = woken ? estimateTime(reading, last.t, performance.now() - last.at) : reading
      last = { t: reading, at: performance.now() }
      const step = segmentStep(segments, t, memory.current)
      if (step.mute !== undefined) p.setMuted(step.mute)
      if (step.seekTo !== undefined && step.skipped) {
        p.seek(step.seekTo)
        say(skipNoticeText(step.skipped), step.skipped)
      }
      clearTimeout(wake)
      wake = step.wakeInMs !== undefined ? setTimeout(() => look(true), step.wakeInMs) : undefined
    }
    look(false)
    const timer = setInterval(() => look(false), POLL_MS)
    return () => {
      clearInterval(timer)
      clearTimeout(wake)
    }
  }, [playing, videoId, active, segments, player, say])

  /** Back to the skipped segment's start: it plays this time (it stays skipped for this play-through). */
  const goBack = useCallback(() => {
    const s = notice?.segment
    if (!s) return
    player.current?.seek(s.start)
    say(`Went back to ${segmentPhrase(s.category)} at ${formatTime(s.start)}: it plays this time.`)
  }, [notice, player, say])

  const dismiss = useCallback(() => setNotice(null), [])

  return { segments, unavailable, notice, goBack, dismiss }
}

const NONE: Segment[] = []

/** The segments useSegmentActions fetched for this video (a progress bar's marks): read from the cache, never fetched here. */
export function useShownSegments(videoId: string | undefined): readonly Segment[] {
  const query = useQuery({ ...segmentsQuery(videoId ?? ''), enabled: false })
  return (videoId && query.data?.segments) || NONE
}
