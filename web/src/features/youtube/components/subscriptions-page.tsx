import { Page } from '~/components/layout/page.tsx'

/** /youtube/subscriptions (SPEC 2). Placeholder for the video engineer. */
export function SubscriptionsPage() {
  return <Page title="Subscriptions" />
}
