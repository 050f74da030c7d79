import { createFileRoute, redirect } from '@tanstack/react-router'

// docs/product.md#routes: the empty path under the protected root opens the music downloader
export const Route = createFileRoute('/_app/')({
  beforeLoad: () => {
    throw redirect({ to: '/music/downloader', replace: true })
  },
})
