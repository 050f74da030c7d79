import { createRouter } from '@tanstack/react-router'
import { RouteError } from './components/layout/route-error.tsx'
import { PageSpinner } from './components/ui/spinner.tsx'
import { queryClient } from './lib/query-client.ts'
import { routeTree } from './routeTree.gen.ts'

export const router = createRouter({
  routeTree,
  context: { queryClient },
  // loaders read through TanStack Query, which does its own caching
  defaultPreloadStaleTime: 0,
  defaultPreload: 'intent',
  defaultPendingComponent: PageSpinner,
  defaultErrorComponent: RouteError,
  scrollRestoration: false,
})

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router
  }
}
