import { createFileRoute, redirect } from '@tanstack/react-router'
import { AdminPage } from '~/features/admin/components/admin-page.tsx'
import { pageTitle } from '~/lib/page-title.ts'
import { optionalString, searchValidator } from '~/lib/search-params.ts'

/** Admins only: anyone else is sent where unknown paths go (the API answers them 403 anyway). */
export const Route = createFileRoute('/_app/admin')({
  beforeLoad: ({ context }) => {
    if (!context.user.admin) throw redirect({ to: '/music/downloader', replace: true })
  },
  // the open tab, so a reload or a shared link keeps it
  validateSearch: searchValidator<{ tab?: string }>({ tab: optionalString }),
  head: () => pageTitle('Admin'),
  component: function AdminRoute() {
    const { user } = Route.useRouteContext()
    const { tab } = Route.useSearch()
    const navigate = Route.useNavigate()
    return <AdminPage user={user} tab={tab} onTabChange={(next) => navigate({ search: { tab: next === 'status' ? undefined : next }, replace: true })} />
  },
})
