import { createFileRoute } from '@tanstack/react-router'
import { VerifyAccount } from '~/features/auth/components/verify-account.tsx'
import { pageTitle } from '~/lib/page-title.ts'

export const Route = createFileRoute('/_public/verify/$code')({
  head: () => pageTitle('Account Verification'),
  component: function VerifyCodeRoute() {
    const { code } = Route.useParams()
    return <VerifyAccount token={code} />
  },
})
