import { createFileRoute } from '@tanstack/react-router'
import { videoQuery } from '~/features/youtube/api.ts'
import { VideoPage } from '~/features/youtube/components/video-page.tsx'
import { pageTitle } from '~/lib/page-title.ts'

export const Route = createFileRoute('/_app/youtube/video/$id')({
  // the document title is the video's title; a video that cannot load is the page's to report
  loader: ({ context, params }) => context.queryClient.ensureQueryData(videoQuery(params.id)).catch(() => null),
  head: ({ loaderData }) => pageTitle(loaderData?.title ?? 'Video'),
  component: function VideoRoute() {
    const { id } = Route.useParams()
    return <VideoPage key={id} id={id} />
  },
})
