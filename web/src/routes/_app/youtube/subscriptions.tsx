import { createFileRoute } from '@tanstack/react-router'
import { subscriptionsQuery } from '~/features/youtube/api.ts'
import { SubscriptionsPage } from '~/features/youtube/components/subscriptions-page.tsx'
import { pageSearch } from '~/features/youtube/search.ts'
import { pageTitle } from '~/lib/page-title.ts'

export const Route = createFileRoute('/_app/youtube/subscriptions')({
  validateSearch: pageSearch,
  head: () => pageTitle('Subscriptions'),
  loaderDeps: ({ search }) => ({ page: search.page ?? 1 }),
  loader: ({ context, deps }) => void context.queryClient.prefetchQuery(subscriptionsQuery(deps.page)),
  component: SubscriptionsPage,
})
