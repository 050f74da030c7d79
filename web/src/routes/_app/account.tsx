import { createFileRoute } from '@tanstack/react-router'
import { AccountPage } from '~/features/account/components/account-page.tsx'
import { pageTitle } from '~/lib/page-title.ts'
import { optionalString, searchValidator } from '~/lib/search-params.ts'

export const Route = createFileRoute('/_app/account')({
  // the open tab, so a reload or a shared link keeps it
  validateSearch: searchValidator<{ tab?: string }>({ tab: optionalString }),
  head: () => pageTitle('Account'),
  component: function AccountRoute() {
    const { user } = Route.useRouteContext()
    const { tab } = Route.useSearch()
    const navigate = Route.useNavigate()
    return <AccountPage user={user} tab={tab} onTabChange={(next) => navigate({ search: { tab: next === 'account' ? undefined : next }, replace: true })} />
  },
})
