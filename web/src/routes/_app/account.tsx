import { createFileRoute } from '@tanstack/react-router'
import { AccountPage } from '~/features/account/components/account-page.tsx'
import { pageTitle } from '~/lib/page-title.ts'

export const Route = createFileRoute('/_app/account')({
  head: () => pageTitle('Account'),
  component: function AccountRoute() {
    const { user } = Route.useRouteContext()
    return <AccountPage user={user} />
  },
})
