import { Outlet, createFileRoute, redirect } from '@tanstack/react-router'
import { AppShell } from '~/components/layout/app-shell.tsx'
import { styled } from 'styled-system/jsx'
import { Spinner } from '~/components/ui/spinner.tsx'
import { sessionQuery } from '~/lib/session.ts'

/**
 * Protected layout: every page under it needs a successful session check.
 * A spinner shows while it runs; on failure the user goes to /login with the
 * wanted page (path and query) in `next`.
 */
export const Route = createFileRoute('/_app')({
  beforeLoad: async ({ context, location }) => {
    try {
      const user = await context.queryClient.ensureQueryData({ ...sessionQuery, revalidateIfStale: true })
      return { user }
    } catch {
      const wanted = location.href
      throw redirect({ to: '/login', search: wanted === '/' ? {} : { next: wanted }, replace: true })
    }
  },
  pendingComponent: () => (
    <styled.div minH="100dvh" display="flex" alignItems="center" justifyContent="center">
      <Spinner size="xl" label="Checking session" />
    </styled.div>
  ),
  pendingMs: 0,
  pendingMinMs: 200,
  component: function AppLayout() {
    const { user } = Route.useRouteContext()
    return (
      <AppShell admin={user.admin}>
        <Outlet />
      </AppShell>
    )
  },
})
