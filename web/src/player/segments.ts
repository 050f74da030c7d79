import { SPONSORBLOCK_CATEGORIES, type SponsorblockAction, type SponsorblockCategory } from '#server/youtube/listen/schema.ts'
import { formatTime } from './logic.ts'

/**
 * SponsorBlock in the player (docs/product.md#sponsorblock, docs/decisions/200): the pure rules
 * the player's poll applies to the current video's segments, kept apart from React so they can
 * be tested without a browser. `use-segment-actions.ts` polls the time and carries them out.
 */

export type { SponsorblockAction, SponsorblockCategory }
export { SPONSORBLOCK_CATEGORIES }

/** One segment as `GET /api/youtube/videos/{id}/segments` gives it; `actionType` is the user's action. */
export type Segment = { uuid: string; category: string; actionType: string; start: number; end: number }

/** How often the player's time is read while it plays (the IFrame API has no time events). */
export const POLL_MS = 200
/**
 * A segment counts as begun this much before its start (timer and seek latency); a skip segment
 * starting before the next poll gets a wake-up at its start (`wakeInMs`, `estimateTime`: the
 * IFrame API's time is the embed's last report, up to ~250 ms old).
 */
export const LEAD_SECONDS = 0.05
/** Closer than this to a segment's end, there is nothing left worth a seek. */
export const END_SLACK_SECONDS = 0.25
/** Skip segments closer than this to each other are skipped as one (no second seek, one notice). */
export const JOIN_SECONDS = 0.5

/** Names and explanations of the categories, in the Account page's order (SponsorBlock's own wording, shortened). */
export const CATEGORY_INFO: Record<SponsorblockCategory, { label: string; description: string; phrase: string }> = {
  sponsor: { label: 'Sponsor', description: 'Paid promotion, paid referrals and direct advertisements.', phrase: 'a sponsor segment' },
  selfpromo: {
    label: 'Unpaid or self promotion',
    description: 'Merchandise, donations, or shout-outs to other channels the creator is not paid for.',
    phrase: 'a self-promotion segment',
  },
  interaction: {
    label: 'Interaction reminder',
    description: 'A short reminder to like, subscribe or follow in the middle of the content.',
    phrase: 'an interaction reminder',
  },
  intro: { label: 'Intro', description: 'An interval without actual content at the start: a pause, a static frame, a repeating animation.', phrase: 'an intro' },
  outro: { label: 'Endcards and credits', description: 'Credits or end cards at the end, after the content is over.', phrase: 'an outro' },
  preview: {
    label: 'Preview or recap',
    description: 'Clips of what is coming up in this video or other videos, or a recap of what came before.',
    phrase: 'a preview or recap',
  },
  filler: { label: 'Filler tangent', description: 'Tangents and jokes added only for filler or humor, not needed for the main content.', phrase: 'a filler tangent' },
  music_offtopic: {
    label: 'Non-music section',
    description: 'In music videos only: parts that are not the music itself (talking, behind the scenes).',
    phrase: 'a non-music section',
  },
}

export const ACTION_LABELS: Record<SponsorblockAction, string> = { skip: 'Skip', mute: 'Mute', show: 'Show', off: 'Off' }

/** The category's noun phrase for a sentence ("a sponsor segment"); an unknown one is "a segment". */
export function segmentPhrase(category: string): string {
  return CATEGORY_INFO[category as SponsorblockCategory]?.phrase ?? 'a segment'
}

/** What one play-through of a video has done so far; a new one (another video, or the same started again) starts empty. */
export type SegmentMemory = {
  /** Skip segments already skipped (or gone back into): not skipped again in this play-through. */
  skipped: Set<string>
  /** The player muted for a `mute` segment and not yet given the sound back. */
  muted: boolean
}

export const newMemory = (): SegmentMemory => ({ skipped: new Set(), muted: false })

/** What the player does after one look at the time. */
export type SegmentStep = {
  /** Seek here (the end of the skipped segment, or of several back to back). */
  seekTo?: number
  /** The skipped segment (the first of those back to back), for the notice and Go back. */
  skipped?: Segment
  /** Mute (true) or give the sound back (false); absent: no change. */
  mute?: boolean
  /** The next skip segment begins sooner than the next poll: look again in this many ms. */
  wakeInMs?: number
}

const valid = (s: Segment) => Number.isFinite(s.start) && Number.isFinite(s.end) && s.end > s.start

/**
 * One look at the player's time `t` (seconds): skips an unskipped `skip` segment it is in (once per
 * play-through: it is remembered in `memory.skipped` whether or not a seek was needed, so a viewer who
 * goes back into it hears it), mutes while in a `mute` segment and unmutes after. Mutates `memory`.
 */
export function segmentStep(segments: readonly Segment[], t: number, memory: SegmentMemory): SegmentStep {
  const out: SegmentStep = {}
  const skips = segments.filter((s) => s.actionType === 'skip' && valid(s)).sort((a, b) => a.start - b.start)
  const hit = skips.find((s) => !memory.skipped.has(s.uuid) && t >= s.start - LEAD_SECONDS && t < s.end)
  let now = t
  if (hit) {
    // this one and any that start before (or right after) it ends: one seek to the last end
    let end = hit.end
    memory.skipped.add(hit.uuid)
    for (const s of skips) {
      if (s === hit || s.start < hit.start || s.start > end + JOIN_SECONDS) continue
      memory.skipped.add(s.uuid)
      end = Math.max(end, s.end)
    }
    if (end - t > END_SLACK_SECONDS) {
      out.seekTo = end
      out.skipped = hit
      now = end
    }
  }
  const inMute = segments.some((s) => s.actionType === 'mute' && valid(s) && now >= s.start && now < s.end)
  if (inMute !== memory.muted) {
    memory.muted = inMute
    out.mute = inMute
  }
  if (out.seekTo === undefined) {
    const next = skips.find((s) => !memory.skipped.has(s.uuid) && s.start - LEAD_SECONDS > now)
    const ms = next ? (next.start - LEAD_SECONDS - now) * 1000 : Number.POSITIVE_INFINITY
    if (ms < POLL_MS) out.wakeInMs = Math.max(0, Math.round(ms))
  }
  return out
}

/**
 * The time to judge by at a wake-up set `elapsedMs` ago at reading `before`: the player's reading,
 * or where playing on from `before` has got to when the reading lags behind it (the IFrame API's
 * time is the embed's last report). A reading more than a second away from the prediction is a
 * seek and wins.
 */
export function estimateTime(reading: number, before: number, elapsedMs: number): number {
  const predicted = before + elapsedMs / 1000
  return Math.abs(predicted - reading) < 1 ? Math.max(reading, predicted) : reading
}

/** The notice after a skip: "Skipped a sponsor segment (0:42)". */
export function skipNoticeText(s: Segment): string {
  return `Skipped ${segmentPhrase(s.category)} (${formatTime(s.start)})`
}

/** `show` segments as marks on a progress bar of `duration` seconds: left and width in percent. */
export function segmentMarks(segments: readonly Segment[], duration: number): { segment: Segment; left: number; width: number }[] {
  if (!(duration > 0)) return []
  return segments
    .filter((s) => s.actionType === 'show' && valid(s) && s.start < duration)
    .map((s) => {
      const left = (Math.max(0, s.start) / duration) * 100
      const right = (Math.min(duration, s.end) / duration) * 100
      return { segment: s, left, width: Math.max(0.5, right - left) }
    })
}

/** The marks in words, for the progress bar's accessible description. */
export function marksDescription(segments: readonly Segment[]): string {
  const shown = segments.filter((s) => s.actionType === 'show' && valid(s))
  if (!shown.length) return ''
  const parts = shown.map((s) => `${CATEGORY_INFO[s.category as SponsorblockCategory]?.label ?? s.category} from ${formatTime(s.start)} to ${formatTime(s.end)}`)
  return `Marked segments: ${parts.join('; ')}.`
}
