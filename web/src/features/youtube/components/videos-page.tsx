import { getRouteApi } from '@tanstack/react-router'
import { Page } from '~/components/layout/page.tsx'
import { useChannelListen } from '../live.ts'
import { AutoplayButton } from './autoplay-button.tsx'
import { VideoList } from './video-list.tsx'

const route = getRouteApi('/_app/youtube/videos')

/** /youtube/videos (docs/product.md#videos-page): the feed of the subscribed channels, with autoplay. */
export function VideosPage() {
  const search = route.useSearch()
  const navigate = route.useNavigate()
  useChannelListen()
  return (
    <Page title="Videos" actions={<AutoplayButton />}>
      <VideoList search={search} onSearchChange={(next) => navigate({ search: next })} />
    </Page>
  )
}
