import { createFileRoute, redirect } from '@tanstack/react-router'

// docs/product.md#routes: unknown paths redirect to the music downloader
export const Route = createFileRoute('/$')({
  beforeLoad: () => {
    throw redirect({ to: '/music/downloader', replace: true })
  },
})
