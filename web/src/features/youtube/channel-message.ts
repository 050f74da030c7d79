import type { QueryClient } from '@tanstack/react-query'
import { invalidateFresh } from '~/lib/invalidate-fresh.ts'
import { queryKeys } from '~/lib/query-keys.ts'

/**
 * What /api/youtube/channel/listen sends: a channel's refresh starting or ending, or a keep-alive
 * (and listen mode's audio readiness, which the player handles: ~/player/listen-push.ts).
 */
export type ChannelMessage = { id: string; updating: boolean } | { status: 'PING' } | { videoId: string; audio: unknown }

type ChannelData = { id: string; updating: boolean }
type ChannelList = { channels: ChannelData[] }

/**
 * docs/product.md#live-updates, live socket for channels: refresh the channel of that id; when
 * `updating` is false also its videos (and the feed, which holds them too).
 * The flag is written into the cache first so 'Retrieving latest videos...'
 * shows without waiting for the refetch.
 */
export function applyChannelMessage(queryClient: QueryClient, msg: ChannelMessage) {
  if (!msg || typeof msg !== 'object' || !('id' in msg) || typeof msg.id !== 'string') return
  const { id, updating } = msg
  queryClient.setQueryData<ChannelData>(queryKeys.youtubeChannel.detail(id), (old) => (old ? { ...old, updating } : old))
  for (const [key, data] of queryClient.getQueriesData<ChannelList>({ queryKey: queryKeys.youtubeSubscription.all })) {
    if (data?.channels?.some((c) => c.id === id)) {
      queryClient.setQueryData(key, { ...data, channels: data.channels.map((c) => (c.id === id ? { ...c, updating } : c)) })
    }
  }
  // a list asked before the refresh wrote its videos may still be on its way: asked again after it
  void invalidateFresh(queryClient, { queryKey: queryKeys.youtubeChannel.detail(id) })
  if (!updating) {
    void invalidateFresh(queryClient, { queryKey: queryKeys.youtubeChannelVideos.byChannel(id) })
    void invalidateFresh(queryClient, { queryKey: queryKeys.youtubeVideo.all })
    void invalidateFresh(queryClient, { queryKey: queryKeys.youtubeSubscription.all })
  }
}

/** Ids of the channels the cache shows as refreshing (their page or their subscription card). */
function shownUpdating(queryClient: QueryClient): Set<string> {
  const ids = new Set<string>()
  for (const [, data] of queryClient.getQueriesData<ChannelData>({ queryKey: queryKeys.youtubeChannel.all })) {
    if (data?.updating) ids.add(data.id)
  }
  for (const [, data] of queryClient.getQueriesData<ChannelList>({ queryKey: queryKeys.youtubeSubscription.all })) {
    for (const c of data?.channels ?? []) if (c.updating) ids.add(c.id)
  }
  return ids
}

/**
 * The socket opened: what it would have said while it was not listening is lost. After a
 * reconnect everything its messages keep fresh is read again. At the first open, the page's
 * own reads came just before, so only the channels shown as refreshing are read again (their
 * end may have come between those reads and the opening), also once reads still on their way
 * have answered.
 */
export function catchUp(queryClient: QueryClient, reconnected: boolean) {
  if (reconnected) {
    for (const queryKey of [queryKeys.youtubeChannel.all, queryKeys.youtubeChannelVideos.all, queryKeys.youtubeSubscription.all, queryKeys.youtubeVideo.all]) {
      void invalidateFresh(queryClient, { queryKey })
    }
    return
  }
  const reread = () => {
    for (const id of shownUpdating(queryClient)) {
      void invalidateFresh(queryClient, { queryKey: queryKeys.youtubeChannel.detail(id) })
      void invalidateFresh(queryClient, { queryKey: queryKeys.youtubeChannelVideos.byChannel(id) })
      void invalidateFresh(queryClient, { queryKey: queryKeys.youtubeSubscription.all, predicate: (q) => inList(q.state.data, id) })
    }
  }
  reread()
  for (const queryKey of [queryKeys.youtubeChannel.all, queryKeys.youtubeSubscription.all]) {
    for (const query of queryClient.getQueryCache().findAll({ queryKey, fetchStatus: 'fetching' })) {
      void query.promise?.then(reread, () => {})
    }
  }
}

const inList = (data: unknown, id: string) => (data as ChannelList | undefined)?.channels?.some((c) => c.id === id) ?? false

