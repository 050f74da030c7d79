import { eq, sql } from 'drizzle-orm'
import type { AppContext } from '../../context.ts'
import { errorFields, log } from '../../lib/logger.ts'
import { lookupSegments, mergeSegments, SponsorBlockUnavailable, type RawSegment, type SkipSegment } from '../../music/sponsorblock.ts'
import { SPONSORBLOCK_CATEGORIES } from './schema.ts'
import type { SponsorblockSettings } from './settings.ts'
import { youtubeSegmentCache } from './tables.ts'

/** How long a lookup is kept (docs/decisions/191): segments are voted on and added mostly in a video's first days. */
export const SEGMENTS_TTL_MS = 6 * 60 * 60 * 1000
/** Actions the player carries out; full-video labels, highlights and chapters are not asked for. */
const ACTION_TYPES = ['skip', 'mute'] as const

export interface SegmentJson {
  uuid: string
  category: string
  /** What the player does with it: the user's action for its category (`skip`, `mute`, `show`). */
  actionType: string
  start: number
  end: number
}

/**
 * The video's segments (every category, looked up by hash prefix and cached for
 * SEGMENTS_TTL_MS; an answer while SponsorBlock is down is not cached), with the
 * user's action for each and the `off` categories left out.
 */
export async function videoSegments(
  ctx: AppContext,
  videoId: string,
  settings: SponsorblockSettings,
  signal: AbortSignal,
): Promise<{ segments: SegmentJson[]; unavailable: boolean }> {
  const all = await cachedSegments(ctx, videoId, signal)
  if (!all) return { segments: [], unavailable: true }
  const segments = all.flatMap((s) => {
    const action = settings[s.category as keyof SponsorblockSettings]
    return action && action !== 'off' ? [{ ...s, actionType: action }] : []
  })
  return { segments, unavailable: false }
}

/**
 * Every category's segments of the video (cached for SEGMENTS_TTL_MS, looked up by hash
 * prefix); null when SponsorBlock cannot be reached (not cached).
 */
export async function cachedSegments(ctx: AppContext, videoId: string, signal: AbortSignal): Promise<RawSegment[] | null> {
  const [cached] = await ctx.db
    .select()
    .from(youtubeSegmentCache)
    .where(sql`${youtubeSegmentCache.videoId} = ${videoId} and ${youtubeSegmentCache.fetchedAt} > now() - make_interval(secs => ${SEGMENTS_TTL_MS / 1000})`)
  if (cached) return cached.segments
  let all: RawSegment[]
  try {
    all = await lookupSegments(ctx.env.SPONSORBLOCK_URL, videoId, SPONSORBLOCK_CATEGORIES, ACTION_TYPES, ctx.allow, signal)
  } catch (err) {
    if (!(err instanceof SponsorBlockUnavailable)) throw err
    log.warn('SponsorBlock unavailable', errorFields(err))
    return null
  }
  await ctx.db
    .insert(youtubeSegmentCache)
    .values({ videoId, segments: all })
    .onConflictDoUpdate({ target: youtubeSegmentCache.videoId, set: { segments: all, fetchedAt: sql`now()` } })
  return all
}

/**
 * What a podcast episode cuts out (the music cut's rule, src/music/sponsorblock.ts): the
 * segments SponsorBlock lists as `skip` in the given categories, merged; null when
 * SponsorBlock cannot be reached.
 */
export async function skipSpans(ctx: AppContext, videoId: string, categories: readonly string[], signal: AbortSignal): Promise<SkipSegment[] | null> {
  if (!categories.length) return []
  const all = await cachedSegments(ctx, videoId, signal)
  if (!all) return null
  return mergeSegments(all.filter((s) => s.actionType === 'skip' && categories.includes(s.category)).map(({ category, start, end }) => ({ category, start, end })))
}

/** Drops the cached lookup (tests; an admin could too). */
export async function forgetSegments(ctx: AppContext, videoId: string) {
  await ctx.db.delete(youtubeSegmentCache).where(eq(youtubeSegmentCache.videoId, videoId))
}
