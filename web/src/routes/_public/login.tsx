import { createFileRoute } from '@tanstack/react-router'
import { LoginForm } from '~/features/auth/components/login-form.tsx'
import { optionalString, searchValidator } from '~/lib/search-params.ts'
import { pageTitle } from '~/lib/page-title.ts'

export const Route = createFileRoute('/_public/login')({
  // `next`: the protected page (path and query) to return to after logging in
  validateSearch: searchValidator<{ next?: string }>({ next: optionalString }),
  head: () => pageTitle('Login'),
  component: function LoginRoute() {
    const { next } = Route.useSearch()
    return <LoginForm next={next} />
  },
})
