import { Page } from '~/components/layout/page.tsx'

/** /youtube/channel/$id (SPEC 2): its title becomes the channel title. Placeholder for the video engineer. */
export function ChannelPage({ id }: { id: string }) {
  return <Page title="Channel">{id}</Page>
}
