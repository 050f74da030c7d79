import { Outlet, createFileRoute } from '@tanstack/react-router'
import { PublicShell } from '~/components/layout/public-shell.tsx'

/** Layout of the public pages: login, sign-up, verification and legal texts. */
export const Route = createFileRoute('/_public')({
  component: () => (
    <PublicShell>
      <Outlet />
    </PublicShell>
  ),
})
