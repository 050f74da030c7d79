import { Page } from '~/components/layout/page.tsx'

/** /youtube/videos (SPEC 2). Placeholder for the video engineer. */
export function VideosPage() {
  return <Page title="Videos" />
}
