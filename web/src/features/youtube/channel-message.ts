import type { QueryClient } from '@tanstack/react-query'
import { invalidateFresh } from '~/lib/invalidate-fresh.ts'
import { queryKeys } from '~/lib/query-keys.ts'

/** What /api/youtube/channel/listen sends: a channel's refresh starting or ending, or a keep-alive. */
export type ChannelMessage = { id: string; updating: boolean } | { status: 'PING' }

type ChannelData = { id: string; updating: boolean }
type ChannelList = { channels: ChannelData[] }

/**
 * docs/product.md#live-updates, live socket for channels: refresh the channel of that id; when
 * `updating` is false also its videos (and the feed, which holds them too).
 * The flag is written into the cache first so 'Retrieving latest videos...'
 * shows without waiting for the refetch.
 */
export function applyChannelMessage(queryClient: QueryClient, msg: ChannelMessage) {
  if (!('id' in msg) || typeof msg.id !== 'string') return
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
