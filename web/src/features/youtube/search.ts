import { z } from 'zod'
import type { VideoFilters } from './api.ts'
import { PAGE_SIZE } from './constants.ts'

/**
 * SPEC 2: the video list keeps its filters in the URL (page, perPage,
 * videoCategories, likedOnly, queuedOnly). Defaults stay out of the URL;
 * anything unreadable falls back to its default instead of failing the page.
 */
export const videoListSearch = z.object({
  page: z.coerce.number().int().min(1).optional().catch(undefined),
  perPage: z.coerce.number().int().min(1).max(100).optional().catch(undefined),
  videoCategories: z.array(z.coerce.number().int().min(0)).optional().catch(undefined),
  likedOnly: z.boolean().optional().catch(undefined),
  queuedOnly: z.boolean().optional().catch(undefined),
})

export type VideoListSearch = z.infer<typeof videoListSearch>

export function filtersFrom(search: VideoListSearch, channelId?: string): VideoFilters {
  return {
    page: search.page ?? 1,
    perPage: search.perPage ?? PAGE_SIZE,
    videoCategories: [...(search.videoCategories ?? [])].sort((a, b) => a - b),
    likedOnly: search.likedOnly ?? false,
    queuedOnly: search.queuedOnly ?? false,
    channelId,
  }
}

/**
 * The search after a filter change: SPEC 2 "changing any filter resets page
 * to 1" (page 1 is the default, so it leaves the URL).
 */
export function withFilter(search: VideoListSearch, change: Omit<VideoListSearch, 'page'>): VideoListSearch {
  const next: VideoListSearch = { ...search, ...change, page: undefined }
  if (next.likedOnly === false) next.likedOnly = undefined
  if (next.queuedOnly === false) next.queuedOnly = undefined
  if (next.videoCategories?.length === 0) next.videoCategories = undefined
  return next
}

export function withPage(search: VideoListSearch, page: number): VideoListSearch {
  return { ...search, page: page > 1 ? page : undefined }
}

/** Subscriptions page: only the page number. */
export const pageSearch = z.object({
  page: z.coerce.number().int().min(1).optional().catch(undefined),
})
