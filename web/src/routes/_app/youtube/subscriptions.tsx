import { createFileRoute } from '@tanstack/react-router'
import { SubscriptionsPage } from '~/features/youtube/components/subscriptions-page.tsx'
import { pageTitle } from '~/lib/page-title.ts'

export const Route = createFileRoute('/_app/youtube/subscriptions')({
  head: () => pageTitle('Subscriptions'),
  component: SubscriptionsPage,
})
