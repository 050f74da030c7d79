import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { Spinner } from '~/components/ui/spinner.tsx'
import { ALREADY_VERIFIED, ALREADY_VERIFIED_KIND } from '#server/auth/schema.ts'
import { ApiError, errorText } from '~/lib/api.ts'
import { verifyAccountQuery } from '../api.ts'
import { AuthCard } from './auth-card.tsx'

/** docs/product.md#account-verification: spinner, then 'Account Verified !' or the error; 'Redirect Home'. */
export function VerifyAccount({ token }: { token?: string }) {
  const verify = useQuery({ ...verifyAccountQuery(token ?? ''), enabled: !!token })
  return (
    <AuthCard title="Account Verification">
      <styled.div display="flex" flexDirection="column" gap="5">
        {!token ? (
          <Alert status="error">Token is not valid.</Alert>
        ) : verify.isPending ? (
          <styled.div display="flex" justifyContent="center" py="6">
            <Spinner size="lg" label="Verifying account" />
          </styled.div>
        ) : verify.isError && verify.error instanceof ApiError && verify.error.errorKind === ALREADY_VERIFIED_KIND ? (
          // the link opened again (a reload, a mail scanner first): nothing is wrong
          <Alert status="info" title="Already verified">
            {ALREADY_VERIFIED}
          </Alert>
        ) : verify.isError ? (
          <Alert status="error">{errorText(verify.error)}</Alert>
        ) : (
          <Alert status="success">Account Verified !</Alert>
        )}
        <styled.div display="flex" gap="3" flexWrap="wrap">
          <Button asChild>
            <Link to="/">Redirect Home</Link>
          </Button>
          {verify.isError && (
            <Button asChild variant="outline">
              <Link to="/login">Login</Link>
            </Button>
          )}
        </styled.div>
      </styled.div>
    </AuthCard>
  )
}
