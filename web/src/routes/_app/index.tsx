import { createFileRoute, redirect } from '@tanstack/react-router'

// SPEC 2: the empty path under the protected root opens the music downloader
export const Route = createFileRoute('/_app/')({
  beforeLoad: () => {
    throw redirect({ to: '/music/downloader', replace: true })
  },
})
