import { type QueryClient, queryOptions } from '@tanstack/react-query'
import { api, request } from '~/lib/api.ts'
import { channelSocketOpen } from '~/lib/channel-socket.ts'
import { queryClient } from '~/lib/query-client.ts'
import { queryKeys } from '~/lib/query-keys.ts'
import { patchVideoCaches, restoreCaches } from '~/lib/video-cache.ts'
import { type AudioStatus, audioPollInterval } from './listen.ts'
import { resumePosition } from './logic.ts'

/** The position saved on the server for one video (so it resumes on another device). */
export const progressQuery = (id: string) =>
  queryOptions({
    queryKey: queryKeys.youtubeVideo.progress(id),
    queryFn: () => request(api.youtube.videos[':id'].progress.$get({ param: { id } })),
    staleTime: 0,
    retry: false,
  })

/**
 * Listen mode: asks for a video's audio (POST starts the fetch, or reports it under way, ready or
 * failed); the channel socket says when it is ready (./listen-push.ts), and the player asks again
 * while it is fetched (every 5 s with the socket open, every second without), also in a hidden
 * tab or on a locked phone, where listening goes on (docs/decisions/194, 310).
 */
export const audioQuery = (id: string) =>
  queryOptions({
    queryKey: queryKeys.youtubeAudio.detail(id),
    queryFn: (): Promise<AudioStatus> => request(api.youtube.videos[':id'].audio.$post({ param: { id } })),
    staleTime: 0,
    retry: 2,
    refetchOnWindowFocus: false,
    refetchInterval: (query) => audioPollInterval(query.state.data, channelSocketOpen()),
    refetchIntervalInBackground: true,
  })

/** Where a video should start: its saved position (0 when none, or when it could not be read). */
export async function savedStart(id: string, client: QueryClient = queryClient): Promise<number> {
  try {
    return resumePosition(await client.fetchQuery(progressQuery(id)))
  } catch {
    return 0
  }
}

/**
 * Saves the position (`keepalive` lets it finish while the page unloads).
 * Failures are not worth a message: the position is a convenience.
 */
export function saveProgress(id: string, playedSeconds: number, duration: number, opts: { keepalive?: boolean } = {}) {
  const json = { playedSeconds: Math.max(0, playedSeconds), duration: Math.max(0, duration) }
  if (json.duration > 0 && json.playedSeconds > json.duration) json.playedSeconds = json.duration
  queryClient.setQueryData(queryKeys.youtubeVideo.progress(id), (old: object | undefined) => ({ ...old, ...json }))
  return request(
    api.youtube.videos[':id'].progress.$put({ param: { id }, json }, opts.keepalive ? { init: { keepalive: true } } : undefined),
  ).catch(() => null)
}

/**
 * PUT .../watch, shown at once in every cached list and page (docs/product.md#video-marks: the
 * watch call is sent once playback passes 20 s); rolled back when it fails.
 */
export async function markWatched(id: string, client: QueryClient = queryClient): Promise<boolean> {
  // no cancelQueries: it could cancel the page the player is loading; a refetch racing this is harmless
  const snapshot = patchVideoCaches(client, id, { watched: new Date().toISOString() })
  try {
    await request(api.youtube.videos[':id'].watch.$put({ param: { id } }))
    return true
  } catch {
    restoreCaches(client, snapshot)
    return false
  }
}
