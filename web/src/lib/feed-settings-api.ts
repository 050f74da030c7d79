import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { api, request } from '~/lib/api.ts'
import { queryKeys } from '~/lib/query-keys.ts'
import type { DearrowMode } from '#server/youtube/personal/schema.ts'

// Groups of channels, muted words and DeArrow: the person's own shaping of the feed.

const groupsKey = ['YoutubeGroup'] as const
const filtersKey = ['YoutubeFeedFilters'] as const
const dearrowKey = ['YoutubeDearrow'] as const

export const groupsQuery = queryOptions({
  queryKey: groupsKey,
  queryFn: () => request(api.youtube.groups.$get()),
  staleTime: 60_000,
})
export type Group = { id: string; name: string; channelIds: string[] }

/** Every followed channel (the group editor lists them all), 100 a request. */
export const allSubscriptionsQuery = queryOptions({
  queryKey: [...queryKeys.youtubeSubscription.all, 'all'],
  queryFn: async () => {
    const out: { id: string; title: string }[] = []
    for (let page = 1; page <= 50; page++) {
      const data = await request(api.youtube.subscriptions.list.$get({ query: { page: String(page), per_page: '100' } }))
      out.push(...data.channels.map((c) => ({ id: c.id, title: c.title })))
      if (page >= data.totalPages) break
    }
    return out
  },
})

/** After a change of groups or muted words the feed's pages are stale. */
function useRefreshFeed() {
  const queryClient = useQueryClient()
  return () => queryClient.invalidateQueries({ queryKey: queryKeys.youtubeVideo.all })
}

export function useSaveGroup() {
  const queryClient = useQueryClient()
  const refresh = useRefreshFeed()
  return useMutation({
    mutationFn: (g: { id?: string; name: string; channelIds: string[] }) =>
      g.id
        ? request(api.youtube.groups[':id'].$patch({ param: { id: g.id }, json: { name: g.name, channelIds: g.channelIds } }))
        : request(api.youtube.groups.$post({ json: { name: g.name, channelIds: g.channelIds } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: groupsKey })
      await refresh()
    },
  })
}

export function useDeleteGroup() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (id: string) => {
      await request(api.youtube.groups[':id'].$delete({ param: { id } }))
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: groupsKey }),
  })
}

export const filtersQuery = queryOptions({
  queryKey: filtersKey,
  queryFn: () => request(api.youtube.filters.$get()),
})

export function useSaveFilters() {
  const queryClient = useQueryClient()
  const refresh = useRefreshFeed()
  return useMutation({
    mutationFn: (mutedWords: string[]) => request(api.youtube.filters.$put({ json: { mutedWords } })),
    onSuccess: async (data) => {
      queryClient.setQueryData(filtersKey, data)
      await refresh()
    },
  })
}

export const dearrowQuery = queryOptions({
  queryKey: dearrowKey,
  queryFn: () => request(api.youtube.dearrow.$get()),
  staleTime: 5 * 60_000,
})

export function useSaveDearrow() {
  const queryClient = useQueryClient()
  const refresh = useRefreshFeed()
  return useMutation({
    mutationFn: (mode: DearrowMode) => request(api.youtube.dearrow.$put({ json: { mode } })),
    onSuccess: async (data) => {
      queryClient.setQueryData(dearrowKey, data)
      await refresh()
    },
  })
}
