import { createFileRoute, redirect } from '@tanstack/react-router'
import { AdminPage } from '~/features/admin/components/admin-page.tsx'
import { pageTitle } from '~/lib/page-title.ts'

/** Admins only: anyone else is sent where unknown paths go (the API answers them 403 anyway). */
export const Route = createFileRoute('/_app/admin')({
  beforeLoad: ({ context }) => {
    if (!context.user.admin) throw redirect({ to: '/music/downloader', replace: true })
  },
  head: () => pageTitle('Admin'),
  component: function AdminRoute() {
    const { user } = Route.useRouteContext()
    return <AdminPage user={user} />
  },
})
