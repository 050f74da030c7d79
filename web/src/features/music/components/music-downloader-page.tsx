import { useNavigate } from '@tanstack/react-router'
import { useCallback, useState } from 'react'
import { styled } from 'styled-system/jsx'
import { Page } from '~/components/layout/page.tsx'
import type { MusicPrefill } from '../search.ts'
import { JobList } from './job-list.tsx'
import { MusicForm } from './music-form.tsx'

/** /music/downloader (docs/product.md#music-downloader): the form above the paginated, live 'Jobs' list. */
export function MusicDownloaderPage({ prefill = {} }: { prefill?: MusicPrefill }) {
  const [page, setPage] = useState(1)
  const navigate = useNavigate()
  const onCreated = useCallback(() => {
    setPage(1)
    // the prefill has been used: a reload must not fill the form again
    if (Object.values(prefill).some(Boolean)) void navigate({ to: '/music/downloader', search: {}, replace: true })
  }, [prefill, navigate])

  return (
    <Page title="Music Downloader">
      {/* room under the list, so the last job's buttons can be scrolled clear of the bottom-right toasts */}
      <styled.div display="flex" flexDirection="column" gap={{ base: '8', md: '10' }} maxW="5xl" width="full" pb="28">
        <MusicForm prefill={prefill} onCreated={onCreated} />
        <JobList page={page} onPageChange={setPage} />
      </styled.div>
    </Page>
  )
}
