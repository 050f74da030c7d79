import { createFileRoute } from '@tanstack/react-router'
import { VideoPage } from '~/features/youtube/components/video-page.tsx'
import { pageTitle } from '~/lib/page-title.ts'

export const Route = createFileRoute('/_app/youtube/video/$id')({
  head: () => pageTitle('Video'),
  component: function VideoRoute() {
    const { id } = Route.useParams()
    return <VideoPage id={id} />
  },
})
