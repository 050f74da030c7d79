import { type QueryClient, keepPreviousData, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { notify } from '~/components/ui/toaster.tsx'
import { api, errorText, isStatus, request } from '~/lib/api.ts'
import { queryKeys } from '~/lib/query-keys.ts'
import { type CacheSnapshot, isVideoQuery, patchVideoCaches, restoreCaches } from '~/lib/video-cache.ts'
import { PAGE_SIZE, RELATED_VIDEOS } from './constants.ts'


export type VideoFilters = {
  page: number
  perPage: number
  videoCategories: number[]
  likedOnly: boolean
  queuedOnly: boolean
  hideWatched: boolean
  hideShorts: boolean
  hideLive: boolean
  /** Words of the title; '' for none. */
  q: string
  /** The channel page lists one channel's videos. */
  channelId?: string
  /** The feed: only this group's channels. */
  group?: string
}

const fetchVideoList = (f: VideoFilters, signal?: AbortSignal) =>
  request(
    api.youtube.videos.list.$get(
      {
        query: {
          page: String(f.page),
          per_page: String(f.perPage),
          // the server's schema types these as always present; '' means "not set" there
          video_categories: f.videoCategories.join(','),
          ...(f.channelId ? { channel_id: f.channelId } : {}),
          liked_only: f.likedOnly ? 'true' : '',
          queued_only: f.queuedOnly ? 'true' : '',
          hide_watched: f.hideWatched ? 'true' : '',
          hide_shorts: f.hideShorts ? 'true' : '',
          hide_live: f.hideLive ? 'true' : '',
          ...(f.q ? { q: f.q } : {}),
          ...(f.group ? { group: f.group } : {}),
        },
      },
      { init: { signal } },
    ),
  )

export type VideoListData = Awaited<ReturnType<typeof fetchVideoList>>
export type Video = VideoListData['videos'][number]

const fetchVideo = (id: string) =>
  request(api.youtube.videos[':id'].$get({ param: { id }, query: { related_videos_length: String(RELATED_VIDEOS) } }))
export type VideoDetail = Awaited<ReturnType<typeof fetchVideo>>

const fetchChannel = (id: string) => request(api.youtube.channels[':id'].$get({ param: { id } }))
export type Channel = Awaited<ReturnType<typeof fetchChannel>>

/** The filters that make a list (everything but the page): the player's list identity. */
export function listIdentity(f: VideoFilters) {
  return {
    perPage: f.perPage,
    videoCategories: f.videoCategories,
    likedOnly: f.likedOnly,
    queuedOnly: f.queuedOnly,
    hideWatched: f.hideWatched,
    hideShorts: f.hideShorts,
    hideLive: f.hideLive,
    q: f.q,
    channelId: f.channelId ?? null,
    group: f.group ?? null,
  }
}

export function videoListKey(f: VideoFilters) {
  const filters = { ...listIdentity(f), page: f.page }
  return f.channelId ? queryKeys.youtubeChannelVideos.list(f.channelId, filters) : queryKeys.youtubeVideo.list(filters)
}

export const videoListQuery = (f: VideoFilters) =>
  queryOptions({
    queryKey: videoListKey(f),
    queryFn: ({ signal }) => fetchVideoList(f, signal),
    // the grid keeps the page it shows until the next one arrives (the spinner says it is coming)
    placeholderData: keepPreviousData,
  })

export const videoQuery = (id: string) =>
  queryOptions({ queryKey: queryKeys.youtubeVideo.detail(id), queryFn: () => fetchVideo(id) })

export const channelQuery = (id: string) =>
  queryOptions({ queryKey: queryKeys.youtubeChannel.detail(id), queryFn: () => fetchChannel(id) })

export const subscriptionsQuery = (page: number, perPage = PAGE_SIZE) =>
  queryOptions({
    queryKey: queryKeys.youtubeSubscription.list(page, perPage),
    queryFn: () => request(api.youtube.subscriptions.list.$get({ query: { page: String(page), per_page: String(perPage) } })),
    placeholderData: keepPreviousData,
  })

export const categoriesQuery = queryOptions({
  queryKey: queryKeys.youtubeVideoCategory.all,
  queryFn: () => request(api.youtube.videos.categories.$get()),
})

/** The connected personal channel, or null when there is none (404). */
/** GET /api/youtube/mode: `api` with a YouTube API key, `feed` without (what works without one is said where it matters). */
export const youtubeModeQuery = queryOptions({
  queryKey: ['YoutubeMode'] as const,
  queryFn: () => request(api.youtube.mode.$get()),
  staleTime: Number.POSITIVE_INFINITY,
})

export const userChannelQuery = queryOptions({
  queryKey: queryKeys.youtubeUserChannel.all,
  queryFn: async () => {
    try {
      return await request(api.youtube.channels.user.$get())
    } catch (err) {
      if (isStatus(err, 404)) return null
      throw err
    }
  },
})

// ---- subscriptions -----------------------------------------------------------

/** Refreshes what a (un)subscription changes: the channel, the subscription lists and the feed. */
function afterSubscriptionChange(queryClient: QueryClient, channelId?: string) {
  void queryClient.invalidateQueries({ queryKey: queryKeys.youtubeSubscription.all })
  void queryClient.invalidateQueries({ queryKey: queryKeys.youtubeVideo.all })
  if (channelId) void queryClient.invalidateQueries({ queryKey: queryKeys.youtubeChannel.detail(channelId) })
}

/** PUT /subscriptions/user?channel_id=<id or @handle>: answers the channel. */
export function useSubscribe() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (channelRef: string) => request(api.youtube.subscriptions.user.$put({ query: { channel_id: channelRef } })),
    onSuccess: (channel) => {
      queryClient.setQueryData(queryKeys.youtubeChannel.detail(channel.id), channel)
      afterSubscriptionChange(queryClient, channel.id)
    },
  })
}

type SubscriptionList = { channels: { id: string }[]; totalPages: number }

/** DELETE /subscriptions/user: the card leaves its grid at once, and comes back if the call fails. */
export function useUnsubscribe() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (channelId: string) => request(api.youtube.subscriptions.user.$delete({ query: { channel_id: channelId } })),
    onMutate: async (channelId) => {
      await queryClient.cancelQueries({ queryKey: queryKeys.youtubeSubscription.all })
      const snapshot: CacheSnapshot = []
      for (const [key, data] of queryClient.getQueriesData<SubscriptionList>({ queryKey: queryKeys.youtubeSubscription.all })) {
        if (!data?.channels?.some((c) => c.id === channelId)) continue
        snapshot.push([key, data])
        queryClient.setQueryData(key, { ...data, channels: data.channels.filter((c) => c.id !== channelId) })
      }
      const channelKey = queryKeys.youtubeChannel.detail(channelId)
      const channel = queryClient.getQueryData<Channel>(channelKey)
      if (channel) {
        snapshot.push([channelKey, channel])
        queryClient.setQueryData(channelKey, { ...channel, subscribed: false })
      }
      return { snapshot }
    },
    onError: (err, _id, context) => {
      if (context) restoreCaches(queryClient, context.snapshot)
      notify.error('Could not remove the subscription', errorText(err))
    },
    onSettled: (_data, _err, channelId) => afterSubscriptionChange(queryClient, channelId),
  })
}

/** POST /channels/user {channel_id}: connects the personal channel whose public subscriptions sync. */
export function useUpdateUserChannel() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (channelId: string) => request(api.youtube.channels.user.$post({ json: { channel_id: channelId } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.youtubeUserChannel.all })
      void queryClient.invalidateQueries({ queryKey: queryKeys.youtubeSubscription.all })
    },
  })
}

/** POST /subscriptions/import (multipart `file`): Takeout CSV, NewPipe JSON or OPML. */
export function useImportSubscriptions() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (file: File) => {
      const body = new FormData()
      body.append('file', file)
      return request(api.youtube.subscriptions.import.$post(undefined, { init: { body } }))
    },
    onSuccess: () => afterSubscriptionChange(queryClient),
  })
}

// ---- video marks -------------------------------------------------------------

export type MarkKind = 'like' | 'queue' | 'watch'
export type MarkChange = { id: string; kind: MarkKind; on: boolean }

const FIELD = { like: 'liked', queue: 'queued', watch: 'watched' } as const

function sendMark({ id, kind, on }: MarkChange) {
  const param = { param: { id } }
  const v = api.youtube.videos[':id']
  if (kind === 'watch') return request(v.watch.$put(param))
  if (kind === 'like') return request(on ? v.like.$put(param) : v.like.$delete(param))
  return request(on ? v.queue.$put(param) : v.queue.$delete(param))
}

/**
 * Like/unlike, queue/unqueue, watched: every cached copy of the video changes
 * at once and is put back if the call fails (docs/product.md#video-marks); afterwards the lists
 * whose membership may have changed (liked only, queued only) are refreshed.
 */
export function useToggleMark() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: sendMark,
    onMutate: (change) => {
      const snapshot = patchVideoCaches(queryClient, change.id, { [FIELD[change.kind]]: change.on ? new Date().toISOString() : null })
      return { snapshot }
    },
    onError: (err, change, context) => {
      if (context) restoreCaches(queryClient, context.snapshot)
      const what = { like: change.on ? 'like' : 'unlike', queue: change.on ? 'queue' : 'unqueue', watch: 'mark watched' }[change.kind]
      notify.error(`Could not ${what} the video`, errorText(err))
    },
    onSettled: () => queryClient.invalidateQueries({ predicate: isVideoQuery }),
  })
}
