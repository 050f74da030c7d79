import type { QueryClient } from '@tanstack/react-query'
import { HeadContent, Navigate, Outlet, createRootRouteWithContext } from '@tanstack/react-router'
import { useScrollTopOnNavigate } from '~/hooks/use-scroll-top.ts'
import { AppToaster } from '~/components/ui/toaster.tsx'

export interface RouterContext {
  queryClient: QueryClient
}

export const Route = createRootRouteWithContext<RouterContext>()({
  head: () => ({ meta: [{ title: 'Tunefeed' }] }),
  component: RootLayout,
  // docs/product.md#routes: any unknown path goes to the music downloader
  notFoundComponent: () => <Navigate to="/music/downloader" replace />,
})

function RootLayout() {
  useScrollTopOnNavigate()
  return (
    <>
      <HeadContent />
      <Outlet />
      <AppToaster />
    </>
  )
}
