import { createFileRoute } from '@tanstack/react-router'
import { z } from 'zod'
import { VerifyAccount } from '~/features/auth/components/verify-account.tsx'
import { pageTitle } from '~/lib/page-title.ts'

// /verify?token=... (the mailed link uses /verify/<token>, see $code.tsx)
export const Route = createFileRoute('/_public/verify/')({
  validateSearch: z.object({ token: z.string().optional().catch(undefined) }),
  head: () => pageTitle('Account Verification'),
  component: function VerifyQueryRoute() {
    const { token } = Route.useSearch()
    return <VerifyAccount token={token} />
  },
})
