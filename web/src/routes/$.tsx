import { createFileRoute, redirect } from '@tanstack/react-router'

// SPEC 2: unknown paths redirect to the music downloader
export const Route = createFileRoute('/$')({
  beforeLoad: () => {
    throw redirect({ to: '/music/downloader', replace: true })
  },
})
