import { createFileRoute } from '@tanstack/react-router'
import { VideosPage } from '~/features/youtube/components/videos-page.tsx'
import { videoListQuery } from '~/features/youtube/api.ts'
import { filtersFrom, videoListSearch } from '~/features/youtube/search.ts'
import { pageTitle } from '~/lib/page-title.ts'

export const Route = createFileRoute('/_app/youtube/videos')({
  validateSearch: videoListSearch,
  head: () => pageTitle('Videos'),
  // starts the list request while the page's code loads; the page shows its own spinner
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps }) => void context.queryClient.prefetchQuery(videoListQuery(filtersFrom(deps))),
  component: VideosPage,
})
