import type { QueryClient } from '@tanstack/react-query'
import { invalidateFresh } from '~/lib/invalidate-fresh.ts'
import { queryKeys } from '~/lib/query-keys.ts'
import { type AudioStatus, audioPushMessage } from './listen.ts'

/**
 * Listen mode's readiness over the channel socket (docs/decisions/310): the server tells the
 * person who asked for a video's audio when its fetch ends, and the player plays at once instead
 * of at its next poll. Registered on ~/lib/channel-socket.ts by the listen controls.
 */
export function applyAudioMessage(queryClient: QueryClient, message: unknown) {
  const pushed = audioPushMessage(message)
  if (!pushed) return
  const key = queryKeys.youtubeAudio.detail(pushed.videoId)
  // only a video the player asked about (a message for another is of no use to this page)
  if (!queryClient.getQueryState(key)) return
  queryClient.setQueryData<AudioStatus>(key, pushed.audio)
}

/** The socket opened: an end it could not tell meanwhile is asked for (audio still shown as fetching). */
export function audioCatchUp(queryClient: QueryClient) {
  void invalidateFresh(queryClient, {
    queryKey: queryKeys.youtubeAudio.all,
    predicate: (q) => (q.state.data as AudioStatus | undefined)?.state === 'fetching',
  })
}
