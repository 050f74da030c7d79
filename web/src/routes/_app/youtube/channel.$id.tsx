import { createFileRoute } from '@tanstack/react-router'
import { ChannelPage } from '~/features/youtube/components/channel-page.tsx'
import { pageTitle } from '~/lib/page-title.ts'

export const Route = createFileRoute('/_app/youtube/channel/$id')({
  head: () => pageTitle('Channel'),
  component: function ChannelRoute() {
    const { id } = Route.useParams()
    return <ChannelPage id={id} />
  },
})
