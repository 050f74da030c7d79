import { createFileRoute } from '@tanstack/react-router'
import { AccountPage } from '~/features/account/components/account-page.tsx'
import { pageTitle } from '~/lib/page-title.ts'
import { optionalString, searchValidator } from '~/lib/search-params.ts'

export const Route = createFileRoute('/_app/account')({
  // the open tab, so a reload or a shared link keeps it; back from linking a sign-in provider
  // (src/auth/oidc-routes.ts): `oidc_linked=1`, or `oidc_error` with the reason
  validateSearch: searchValidator<{ tab?: string; oidc_linked?: boolean; oidc_error?: string }>({
    tab: optionalString,
    oidc_linked: (v) => (v === 1 || v === '1' || v === true ? true : undefined),
    oidc_error: optionalString,
  }),
  head: () => pageTitle('Account'),
  component: function AccountRoute() {
    const { user } = Route.useRouteContext()
    const { tab, oidc_linked, oidc_error } = Route.useSearch()
    const navigate = Route.useNavigate()
    return (
      <AccountPage
        user={user}
        tab={tab}
        onTabChange={(next) => navigate({ search: { tab: next === 'account' ? undefined : next }, replace: true })}
        providerLinked={oidc_linked}
        providerError={oidc_error}
      />
    )
  },
})
