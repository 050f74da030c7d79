import { createFileRoute } from '@tanstack/react-router'
import { VerifyAccount } from '~/features/auth/components/verify-account.tsx'
import { optionalString, searchValidator } from '~/lib/search-params.ts'
import { pageTitle } from '~/lib/page-title.ts'

// /verify?token=... (the mailed link uses /verify/<token>, see $code.tsx)
export const Route = createFileRoute('/_public/verify/')({
  validateSearch: searchValidator<{ token?: string }>({ token: optionalString }),
  head: () => pageTitle('Account Verification'),
  component: function VerifyQueryRoute() {
    const { token } = Route.useSearch()
    return <VerifyAccount token={token} />
  },
})
