import { createFileRoute } from '@tanstack/react-router'
import { channelQuery } from '~/features/youtube/api.ts'
import { ChannelPage } from '~/features/youtube/components/channel-page.tsx'
import { videoListSearch } from '~/features/youtube/search.ts'
import { pageTitle } from '~/lib/page-title.ts'

export const Route = createFileRoute('/_app/youtube/channel/$id')({
  validateSearch: videoListSearch,
  // the document title is the channel's title; a channel that cannot load is the page's to report
  loader: ({ context, params }) => context.queryClient.ensureQueryData(channelQuery(params.id)).catch(() => null),
  head: ({ loaderData }) => pageTitle(loaderData?.title ?? 'Channel'),
  component: function ChannelRoute() {
    const { id } = Route.useParams()
    return <ChannelPage key={id} id={id} />
  },
})
