import { useQuery } from '@tanstack/react-query'
import { ListMusicIcon } from 'lucide-react'
import { useEffect, useState } from 'react'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { CardRoot } from '~/components/ui/card.tsx'
import { Heading } from '~/components/ui/heading.tsx'
import { Pagination } from '~/components/ui/pagination.tsx'
import { Spinner } from '~/components/ui/spinner.tsx'
import { Tooltip } from '~/components/ui/tooltip.tsx'
import { errorText } from '~/lib/api.ts'
import { jobListQuery } from '../api.ts'
import { type SocketState, useMusicJobEvents } from '../use-job-events.ts'
import { JobRow } from './job-row.tsx'
import { NowPlaying, type Playing } from './now-playing.tsx'

const liveText: Record<SocketState, string> = {
  connecting: 'Connecting to live updates…',
  live: 'Live: jobs update as they run',
  reconnecting: 'Live updates lost, reconnecting…',
}

function LiveDot({ state }: { state: SocketState }) {
  return (
    <Tooltip content={liveText[state]}>
      <styled.span display="inline-flex" alignItems="center" gap="1.5" textStyle="xs" color="fg.muted" tabIndex={0} data-testid="live-state" data-state={state}>
        <styled.span
          w="2"
          h="2"
          borderRadius="full"
          bg={state === 'live' ? 'green.default' : state === 'reconnecting' ? 'amber.9' : 'gray.8'}
          boxShadow={state === 'live' ? '0 0 0 3px token(colors.green.a4)' : undefined}
        />
        {state === 'live' ? 'Live' : state === 'reconnecting' ? 'Reconnecting' : 'Connecting'}
      </styled.span>
    </Tooltip>
  )
}

/** docs/product.md#music-downloader: the paginated 'Jobs' list (5 per page, page 1 first), kept live by the socket. */
export function JobList({ page, onPageChange }: { page: number; onPageChange: (page: number) => void }) {
  const socket = useMusicJobEvents()
  const list = useQuery(jobListQuery(page))
  const totalPages = list.data?.totalPages ?? 0
  const [playing, setPlaying] = useState<Playing | null>(null)

  // deleting the last job of the last page: show the page before it
  useEffect(() => {
    if (list.data && !list.isPlaceholderData && page > 1 && page > totalPages) onPageChange(Math.max(1, totalPages))
  }, [list.data, list.isPlaceholderData, page, totalPages, onPageChange])

  return (
    <styled.section display="flex" flexDirection="column" gap="4" aria-labelledby="music-jobs-heading" scrollMarginTop="calc(var(--header-height) + 1rem)" data-testid="music-jobs">
      <styled.div display="flex" alignItems="center" justifyContent="space-between" gap="3">
        <styled.div display="flex" alignItems="center" gap="3">
          <Heading as="h2" size="xl" id="music-jobs-heading">
            Jobs
          </Heading>
          {list.isFetching && !list.isPending && <Spinner size="xs" label="Refreshing jobs" />}
        </styled.div>
        <LiveDot state={socket} />
      </styled.div>

      <CardRoot overflow="hidden">
        {playing && <NowPlaying playing={playing} onClose={() => setPlaying(null)} />}
        {list.isPending ? (
          <styled.div display="flex" justifyContent="center" py="12">
            <Spinner size="lg" label="Loading jobs" />
          </styled.div>
        ) : list.isError && !list.data ? (
          <styled.div p="5" display="flex" flexDirection="column" gap="3" alignItems="flex-start">
            <Alert status="error">{errorText(list.error)}</Alert>
            <Button variant="outline" size="sm" onClick={() => list.refetch()}>
              Try again
            </Button>
          </styled.div>
        ) : list.data && list.data.jobs.length > 0 ? (
          <styled.ul
            listStyle="none"
            m="0"
            p="0"
            aria-label="Jobs"
            css={{ '& > li + li': { borderTopWidth: '1px', borderColor: 'border.subtle' } }}
            opacity={list.isPlaceholderData ? 0.6 : 1}
            transition="opacity 0.15s ease"
          >
            {list.data.jobs.map((job) => (
              <JobRow key={job.id} job={job} onPlay={setPlaying} />
            ))}
          </styled.ul>
        ) : (
          <styled.div display="flex" flexDirection="column" alignItems="center" gap="2" py="12" px="6" textAlign="center" color="fg.muted">
            <styled.div display="flex" alignItems="center" justifyContent="center" w="12" h="12" borderRadius="full" bg="bg.subtle" color="fg.subtle">
              <ListMusicIcon size={22} aria-hidden />
            </styled.div>
            <styled.span fontWeight="medium" color="fg.default">
              No jobs yet
            </styled.span>
            <styled.span textStyle="sm">Jobs you start with the form above show up here.</styled.span>
          </styled.div>
        )}
      </CardRoot>

      <Pagination page={page} totalPages={totalPages} onPageChange={onPageChange} />
    </styled.section>
  )
}
