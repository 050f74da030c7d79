import { createFileRoute } from '@tanstack/react-router'
import { KeptPage } from '~/features/youtube/components/kept-page.tsx'
import { keptQuery } from '~/features/youtube/keep-api.ts'
import { pageSearch } from '~/features/youtube/search.ts'
import { pageTitle } from '~/lib/page-title.ts'

export const Route = createFileRoute('/_app/youtube/kept')({
  validateSearch: pageSearch,
  head: () => pageTitle('Kept videos'),
  loaderDeps: ({ search }) => ({ page: search.page ?? 1 }),
  loader: ({ context, deps }) => void context.queryClient.prefetchQuery(keptQuery(deps.page)),
  component: KeptPage,
})
