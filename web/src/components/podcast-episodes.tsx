import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { RotateCcwIcon } from 'lucide-react'
import { useState } from 'react'
import { styled } from 'styled-system/jsx'
import { Button } from '~/components/ui/button.tsx'
import { api, errorText, request } from '~/lib/api.ts'
import { queryKeys } from '~/lib/query-keys.ts'

/** A podcast's counts as GET /youtube/podcasts gives them with each feed. */
export type EpisodeSummary = { ready: number; fetching: number; failed: number; problem: string | null; keepLast: number }

const episodesKey = (channelId: string) => [...queryKeys.youtubePodcast.all, 'episodes', channelId] as const

const STATE_WORDS: Record<string, string> = { ready: 'Ready', fetching: 'Being made', waiting: 'Waiting its turn', failed: 'Failed' }

/** "3 of 10 episodes ready, 2 being made, 5 failed." */
export function summaryText(s: EpisodeSummary): string {
  const parts = [`${s.ready} of ${s.keepLast} episodes ready`]
  if (s.fetching) parts.push(`${s.fetching} being made`)
  if (s.failed) parts.push(`${s.failed} failed`)
  return `${parts.join(', ')}.`
}

/**
 * A podcast's episodes (docs/decisions/270): each one's state and, when it failed, why, with
 * Retry; Retry All when some failed; the podcast's one sentence when every episode failed. The
 * list loads when opened (`open`: from the start, as on the channel page when some failed).
 * Shared by the channel page, the subscription cards and Account › Podcasts.
 */
export function PodcastEpisodes({ channelId, channelTitle, summary, defaultOpen = false }: { channelId: string; channelTitle: string; summary: EpisodeSummary; defaultOpen?: boolean }) {
  const [open, setOpen] = useState(defaultOpen)
  const queryClient = useQueryClient()
  const list = useQuery({
    queryKey: episodesKey(channelId),
    queryFn: () => request(api.youtube.channels[':id'].podcast.episodes.$get({ param: { id: channelId } })),
    enabled: open,
    refetchInterval: (q) => (q.state.data?.fetching ? 10_000 : false),
  })
  const settled = () => queryClient.invalidateQueries({ queryKey: queryKeys.youtubePodcast.all })
  const retryAll = useMutation({
    mutationFn: () => request(api.youtube.channels[':id'].podcast.retry.$post({ param: { id: channelId } })),
    onSettled: settled,
  })
  const retryOne = useMutation({
    mutationFn: (videoId: string) => request(api.youtube.podcasts.episodes[':id'].retry.$post({ param: { id: videoId } })),
    onSettled: settled,
  })
  const error = retryAll.error ?? retryOne.error

  return (
    <styled.div display="flex" flexDirection="column" gap="2" minW="0" data-podcast-episodes={channelId}>
      {summary.problem && (
        <styled.p textStyle="sm" color="fg.error" data-podcast-problem>
          {summary.problem}
        </styled.p>
      )}
      {summary.failed > 0 && (
        <Button size="xs" variant="outline" alignSelf="flex-start" loading={retryAll.isPending} onClick={() => retryAll.mutate()}>
          <RotateCcwIcon aria-hidden />
          Retry All
          <styled.span srOnly> failed episodes of {channelTitle}</styled.span>
        </Button>
      )}
      {error && (
        <styled.p textStyle="sm" color="fg.error" role="alert">
          The episode could not be started again: {errorText(error)}
        </styled.p>
      )}
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <styled.summary textStyle="sm" cursor="pointer" color="fg.muted" _focusVisible={{ outline: '2px solid', outlineColor: 'colorPalette.default', outlineOffset: '2px' }}>
          Episodes<styled.span srOnly> of {channelTitle}</styled.span>
        </styled.summary>
        {list.isPending ? (
          <styled.p textStyle="sm" color="fg.muted" mt="2">
            Loading episodes…
          </styled.p>
        ) : list.isError ? (
          <styled.p textStyle="sm" color="fg.error" mt="2" role="alert">
            The episodes could not be loaded: {errorText(list.error)}
          </styled.p>
        ) : list.data.episodes.length === 0 ? (
          <styled.p textStyle="sm" color="fg.muted" mt="2">
            This channel has no videos to make episodes of yet.
          </styled.p>
        ) : (
          <styled.ul display="flex" flexDirection="column" gap="2" mt="2" aria-label={`Episodes of ${channelTitle}`}>
            {list.data.episodes.map((e) => (
              <styled.li key={e.videoId} display="flex" alignItems="flex-start" gap="2" textStyle="sm" data-episode-state={e.state}>
                <styled.div flex="1" minW="0">
                  <styled.span display="block" overflowWrap="anywhere">
                    {e.title}
                  </styled.span>
                  <styled.span display="block" color={e.state === 'failed' ? 'fg.error' : 'fg.muted'}>
                    {STATE_WORDS[e.state] ?? e.state}
                    {e.error ? `: ${e.error}` : '.'}
                  </styled.span>
                </styled.div>
                {e.state === 'failed' && (
                  <Button size="xs" variant="outline" flexShrink="0" loading={retryOne.isPending && retryOne.variables === e.videoId} onClick={() => retryOne.mutate(e.videoId)}>
                    Retry<styled.span srOnly> {e.title}</styled.span>
                  </Button>
                )}
              </styled.li>
            ))}
          </styled.ul>
        )}
      </details>
    </styled.div>
  )
}
