import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api, request } from '~/lib/api.ts'
import { queryKeys } from '~/lib/query-keys.ts'

/** PUT /youtube/channels/{id}/podcast; the feeds list (podcastsQuery, ~/lib/podcasts-api.ts) follows. */
export function useSetPodcast() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ channelId, enabled, keepLast }: { channelId: string; enabled: boolean; keepLast: number }) =>
      request(api.youtube.channels[':id'].podcast.$put({ param: { id: channelId }, json: { enabled, keepLast } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.youtubePodcast.all }),
  })
}
