import { createFileRoute } from '@tanstack/react-router'
import { VideosPage } from '~/features/youtube/components/videos-page.tsx'
import { pageTitle } from '~/lib/page-title.ts'

export const Route = createFileRoute('/_app/youtube/videos')({
  head: () => pageTitle('Videos'),
  component: VideosPage,
})
