import { optionalBoolean, optionalInt, optionalString, searchValidator } from '~/lib/search-params.ts'
import type { VideoFilters } from './api.ts'
import { PAGE_SIZE } from './constants.ts'

/**
 * docs/product.md#video-list: the video list keeps its filters in the URL (page, perPage,
 * videoCategories, likedOnly, queuedOnly, hideWatched, hideShorts, hideLive, q).
 * Defaults stay out of the URL;
 * anything unreadable falls back to its default instead of failing the page.
 */
export type VideoListSearch = {
  page?: number
  perPage?: number
  videoCategories?: number[]
  likedOnly?: boolean
  queuedOnly?: boolean
  hideWatched?: boolean
  hideShorts?: boolean
  hideLive?: boolean
  /** Words of the title. */
  q?: string
  /** A group of channels (the feed only). */
  group?: string
}

// hand-written rather than zod: validateSearch is part of the first bundle
export const videoListSearch = searchValidator<VideoListSearch>({
  page: (v) => optionalInt(v, 1),
  perPage: (v) => optionalInt(v, 1, 100),
  videoCategories: categories,
  likedOnly: optionalBoolean,
  queuedOnly: optionalBoolean,
  hideWatched: optionalBoolean,
  hideShorts: optionalBoolean,
  hideLive: optionalBoolean,
  q: (v) => optionalString(v)?.slice(0, 200),
  group: (v) => optionalString(v)?.slice(0, 64),
})

/** Category ids (whole numbers ≥ 0); one bad entry drops the whole list. */
function categories(v: unknown): number[] | undefined {
  if (!Array.isArray(v)) return undefined
  const ids = v.map((c) => optionalInt(c, 0))
  return ids.every((id) => id !== undefined) ? (ids as number[]) : undefined
}

export function filtersFrom(search: VideoListSearch, channelId?: string): VideoFilters {
  return {
    page: search.page ?? 1,
    perPage: search.perPage ?? PAGE_SIZE,
    videoCategories: [...(search.videoCategories ?? [])].sort((a, b) => a - b),
    likedOnly: search.likedOnly ?? false,
    queuedOnly: search.queuedOnly ?? false,
    hideWatched: search.hideWatched ?? false,
    hideShorts: search.hideShorts ?? false,
    hideLive: search.hideLive ?? false,
    q: search.q?.trim() ?? '',
    channelId,
    group: channelId ? undefined : search.group || undefined,
  }
}

/**
 * The search after a filter change (docs/product.md#video-list): "changing any filter resets page
 * to 1" (page 1 is the default, so it leaves the URL).
 */
export function withFilter(search: VideoListSearch, change: Omit<VideoListSearch, 'page'>): VideoListSearch {
  const next: VideoListSearch = { ...search, ...change, page: undefined }
  if (next.likedOnly === false) next.likedOnly = undefined
  if (next.queuedOnly === false) next.queuedOnly = undefined
  for (const key of ['hideWatched', 'hideShorts', 'hideLive'] as const) if (next[key] === false) next[key] = undefined
  if (!next.q?.trim()) next.q = undefined
  if (!next.group) next.group = undefined
  if (next.videoCategories?.length === 0) next.videoCategories = undefined
  return next
}

export function withPage(search: VideoListSearch, page: number): VideoListSearch {
  return { ...search, page: page > 1 ? page : undefined }
}

/** Subscriptions page: only the page number. */
export const pageSearch = searchValidator<{ page?: number }>({ page: (v) => optionalInt(v, 1) })

export type CategoryOption = { label: string; value: string }

/**
 * One Categories option per name (YouTube lists "Comedy" twice, ids 23 and
 * 34): the option's value holds every id behind the name, comma-separated.
 */
export function categoryOptions(categories: readonly { id: number; name: string }[]): CategoryOption[] {
  const byName = new Map<string, number[]>()
  for (const c of categories) byName.set(c.name, [...(byName.get(c.name) ?? []), c.id])
  return [...byName].map(([label, ids]) => ({ label, value: ids.join(',') }))
}

/** The options shown as picked for these ids (a name is picked when any id behind it is). */
export function pickedCategoryOptions(options: readonly CategoryOption[], ids: readonly number[]): string[] {
  return options.filter((o) => o.value.split(',').some((id) => ids.includes(Number(id)))).map((o) => o.value)
}

/** The ids a set of picked options stands for. */
export function categoryIds(values: readonly string[]): number[] {
  return values.flatMap((v) => v.split(',').map(Number))
}
