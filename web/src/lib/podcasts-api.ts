import { queryOptions } from '@tanstack/react-query'
import { api, request } from '~/lib/api.ts'
import { queryKeys } from '~/lib/query-keys.ts'

const fetchPodcasts = () => request(api.youtube.podcasts.$get())
export type Podcasts = Awaited<ReturnType<typeof fetchPodcasts>>

/**
 * The user's podcast feeds (GET /youtube/podcasts): which channels are podcasts, their keepLast
 * and ready episodes. One query for the channel switches and Account › Podcasts (one cache entry).
 */
export const podcastsQuery = queryOptions({
  queryKey: queryKeys.youtubePodcast.all,
  queryFn: fetchPodcasts,
  // episodes are made in the background (after a switch or Retry): the counts follow meanwhile
  refetchInterval: (q) => (q.state.data?.feeds.some((f) => f.fetching > 0) ? 10_000 : false),
})
