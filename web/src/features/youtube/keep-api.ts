import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { api, request } from '~/lib/api.ts'
import { queryKeys } from '~/lib/query-keys.ts'

/** Keeping videos on the server's disk (docs/product.md "Keeping videos"). */
export const KEEP_HEIGHTS = [360, 480, 720, 1080, 1440, 2160] as const
export const KEEP_LAST_MAX = 500

const fetchRule = (channelId: string) => request(api.youtube.channels[':id'].keep.$get({ param: { id: channelId } }))
export type KeepRule = Awaited<ReturnType<typeof fetchRule>>

export const keepRuleQuery = (channelId: string) => queryOptions({ queryKey: queryKeys.youtubeKeep.rule(channelId), queryFn: () => fetchRule(channelId) })

const fetchKept = (page: number, perPage: number) => request(api.youtube.kept.$get({ query: { page: String(page), per_page: String(perPage) } }))
export type KeptList = Awaited<ReturnType<typeof fetchKept>>

export const keptQuery = (page: number, perPage = 24) =>
  queryOptions({
    queryKey: queryKeys.youtubeKeep.kept(page, perPage),
    queryFn: () => fetchKept(page, perPage),
    // fetches run in the background: the states follow while some are under way
    refetchInterval: (q) => (q.state.data?.videos.some((v) => v.kept && (v.kept.state === 'queued' || v.kept.state === 'fetching')) ? 5_000 : false),
  })

/** At most this many pages of 100 are read to find what a channel kept (the quota bounds a person's keeps long before). */
const CHANNEL_KEPT_PAGES = 20

/**
 * The person's kept videos of one channel (the unfollow dialog offers to remove them, decision 316):
 * the Kept list read in pages of 100, filtered by channel.
 */
export const channelKeptQuery = (channelId: string) =>
  queryOptions({
    queryKey: queryKeys.youtubeKeep.ofChannel(channelId),
    queryFn: async () => {
      const ids: string[] = []
      for (let page = 1; page <= CHANNEL_KEPT_PAGES; page++) {
        const list = await fetchKept(page, 100)
        for (const v of list.videos) if (v.channel.id === channelId) ids.push(v.id)
        if (page >= list.totalPages) break
      }
      return ids
    },
  })

/** Everything a keep change can move: the rule, the Kept list, the videos' `kept`. */
function useKeepInvalidation() {
  const queryClient = useQueryClient()
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.youtubeKeep.all }),
      queryClient.invalidateQueries({ queryKey: queryKeys.youtubeVideo.all }),
      queryClient.invalidateQueries({ queryKey: queryKeys.youtubeChannelVideos.all }),
    ])
}

export function useSetKeepRule() {
  const invalidate = useKeepInvalidation()
  return useMutation({
    mutationFn: ({ channelId, rule }: { channelId: string; rule: KeepRule }) => request(api.youtube.channels[':id'].keep.$put({ param: { id: channelId }, json: rule })),
    onSettled: invalidate,
  })
}

export function useKeepVideo() {
  const invalidate = useKeepInvalidation()
  return useMutation({
    mutationFn: ({ id, maxHeight }: { id: string; maxHeight?: number }) => request(api.youtube.videos[':id'].keep.$put({ param: { id }, json: maxHeight ? { maxHeight } : {} })),
    onSettled: invalidate,
  })
}

export function useRemoveKept() {
  const invalidate = useKeepInvalidation()
  return useMutation({
    mutationFn: ({ id }: { id: string }) => request(api.youtube.videos[':id'].keep.$delete({ param: { id } })),
    onSettled: invalidate,
  })
}

/** Removes kept videos (DELETE each, four at a time); resolves to how many could not be removed. */
export function useRemoveManyKept() {
  const invalidate = useKeepInvalidation()
  return useMutation({
    mutationFn: async (ids: readonly string[]) => {
      let failed = 0
      const queue = [...ids]
      const worker = async () => {
        for (let id = queue.shift(); id; id = queue.shift()) {
          await request(api.youtube.videos[':id'].keep.$delete({ param: { id } })).catch(() => failed++)
        }
      }
      await Promise.all([worker(), worker(), worker(), worker()])
      return failed
    },
    onSettled: invalidate,
  })
}

/** The kept file's address (the browser's own player reads it with byte ranges). */
export const keptFileUrl = (id: string) => `/api/youtube/videos/${encodeURIComponent(id)}/file`

export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`
}

export const KEPT_STATE_WORDS = { queued: 'Waiting to be kept', fetching: 'Being kept', ready: 'Kept', failed: 'Could not be kept' } as const
