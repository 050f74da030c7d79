import type { Query, QueryClient, QueryKey } from '@tanstack/react-query'

/**
 * Optimistic updates of a video's marks (liked, queued, watched) across every
 * cached video list and video page, shared by the video pages and the player
 * (features do not import each other). Returns what it replaced, so a failed
 * call can put it back with `restoreCaches`.
 */
export type VideoMarks = { liked?: string | null; queued?: string | null; watched?: string | null }

type WithId = { id: string }
type ListData = { videos: WithId[] }
type DetailData = WithId & { relatedVideos?: WithId[] }

/** Cache roots holding video objects (lists, channel lists, video pages). */
const VIDEO_ROOTS = new Set(['YoutubeVideo', 'YoutubeChannelVideos'])

export function isVideoQuery(query: Pick<Query, 'queryKey'>): boolean {
  return VIDEO_ROOTS.has(String(query.queryKey[0])) && query.queryKey[1] !== 'progress'
}

function patchItem<T extends WithId>(item: T, id: string, marks: VideoMarks): T {
  return item.id === id ? { ...item, ...marks } : item
}

function isList(data: unknown): data is ListData {
  return !!data && typeof data === 'object' && Array.isArray((data as ListData).videos)
}

function isDetail(data: unknown): data is DetailData {
  return !!data && typeof data === 'object' && typeof (data as DetailData).id === 'string'
}

/** The data with the video's marks replaced; the same object when the video is not in it. */
export function patchVideoData(data: unknown, id: string, marks: VideoMarks): unknown {
  if (isList(data)) {
    if (!data.videos.some((v) => v.id === id)) return data
    return { ...data, videos: data.videos.map((v) => patchItem(v, id, marks)) }
  }
  if (isDetail(data)) {
    const related = data.relatedVideos
    const touchesRelated = related?.some((v) => v.id === id)
    if (data.id !== id && !touchesRelated) return data
    const next = patchItem(data, id, marks)
    return touchesRelated ? { ...next, relatedVideos: related!.map((v) => patchItem(v, id, marks)) } : next
  }
  return data
}

export type CacheSnapshot = [QueryKey, unknown][]

/** Patches every cached copy of the video; returns the replaced data for rollback. */
export function patchVideoCaches(queryClient: QueryClient, id: string, marks: VideoMarks): CacheSnapshot {
  const snapshot: CacheSnapshot = []
  for (const query of queryClient.getQueryCache().findAll({ predicate: isVideoQuery })) {
    const before = query.state.data
    const after = patchVideoData(before, id, marks)
    if (after !== before) {
      snapshot.push([query.queryKey, before])
      queryClient.setQueryData(query.queryKey, after)
    }
  }
  return snapshot
}

export function restoreCaches(queryClient: QueryClient, snapshot: CacheSnapshot) {
  for (const [key, data] of snapshot) queryClient.setQueryData(key, data)
}
