import { Page } from '~/components/layout/page.tsx'

/** /youtube/video/$id (SPEC 2): its title becomes the video title. Placeholder for the video engineer. */
export function VideoPage({ id }: { id: string }) {
  return <Page title="Video">{id}</Page>
}
