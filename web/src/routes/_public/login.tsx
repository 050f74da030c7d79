import { createFileRoute, redirect } from '@tanstack/react-router'
import { LoginForm } from '~/features/auth/components/login-form.tsx'
import { optionalString, searchValidator } from '~/lib/search-params.ts'
import { pageTitle } from '~/lib/page-title.ts'
import { safeNext, sessionQuery } from '~/lib/session.ts'

export const Route = createFileRoute('/_public/login')({
  // `next`: the protected page (path and query) to return to after logging in;
  // `oidc_error`: why a sign-in through the identity provider failed (src/auth/oidc-routes.ts)
  // `email` and `reset=1`: from "Account exists." on /create (the address filled in, the Reset Password dialog open)
  validateSearch: searchValidator<{ next?: string; oidc_error?: string; email?: string; reset?: string }>({
    next: optionalString,
    oidc_error: optionalString,
    email: optionalString,
    reset: optionalString,
  }),
  // signed in already: straight on to the wanted page or home (asked afresh: a logout has just ended the session)
  beforeLoad: async ({ context, search }) => {
    const signedIn = await context.queryClient.fetchQuery({ ...sessionQuery, staleTime: 0 }).then(
      () => true,
      () => false,
    )
    if (signedIn) throw redirect({ to: safeNext(search.next) ?? '/', replace: true })
  },
  head: () => pageTitle('Login'),
  component: function LoginRoute() {
    const { next, oidc_error, email, reset } = Route.useSearch()
    return <LoginForm next={next} providerError={oidc_error} email={email} reset={reset === '1'} />
  },
})
