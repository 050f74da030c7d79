import { createFileRoute } from '@tanstack/react-router'
import { z } from 'zod'
import { LoginForm } from '~/features/auth/components/login-form.tsx'
import { pageTitle } from '~/lib/page-title.ts'

export const Route = createFileRoute('/_public/login')({
  // `next`: the protected page (path and query) to return to after logging in
  validateSearch: z.object({ next: z.string().optional().catch(undefined) }),
  head: () => pageTitle('Login'),
  component: function LoginRoute() {
    const { next } = Route.useSearch()
    return <LoginForm next={next} />
  },
})
