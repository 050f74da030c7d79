import { createFileRoute } from '@tanstack/react-router'
import { MusicDownloaderPage } from '~/features/music/components/music-downloader-page.tsx'
import { musicDownloaderSearch } from '~/features/music/search.ts'
import { pageTitle } from '~/lib/page-title.ts'

export const Route = createFileRoute('/_app/music/downloader')({
  // prefill from the video area's "Save as track": videoUrl, title, artist, artworkUrl
  validateSearch: musicDownloaderSearch,
  head: () => pageTitle('Music Downloader'),
  component: function MusicDownloaderRoute() {
    return <MusicDownloaderPage prefill={Route.useSearch()} />
  },
})
