import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { api, request } from '~/lib/api.ts'
import { queryKeys } from '~/lib/query-keys.ts'

const fetchPodcasts = () => request(api.youtube.podcasts.$get())
export type Podcasts = Awaited<ReturnType<typeof fetchPodcasts>>

/** The user's podcast feeds: which channels are podcasts, their keepLast and ready episodes. */
export const podcastsQuery = queryOptions({
  queryKey: queryKeys.youtubePodcast.all,
  queryFn: fetchPodcasts,
  // episodes are made in the background: the counts follow while some are being made
  refetchInterval: (q) => (q.state.data?.feeds.some((f) => f.fetching > 0) ? 10_000 : false),
})

export const DEFAULT_KEEP_LAST = 10
export const KEEP_LAST_MAX = 100

/** PUT /youtube/channels/{id}/podcast; the feeds list follows. */
export function useSetPodcast() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ channelId, enabled, keepLast }: { channelId: string; enabled: boolean; keepLast: number }) =>
      request(api.youtube.channels[':id'].podcast.$put({ param: { id: channelId }, json: { enabled, keepLast } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.youtubePodcast.all }),
  })
}
