import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { Spinner } from '~/components/ui/spinner.tsx'
import { errorText } from '~/lib/api.ts'
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
        ) : verify.isError ? (
          <Alert status="error">{errorText(verify.error)}</Alert>
        ) : (
          <Alert status="success">Account Verified !</Alert>
        )}
        <Button asChild alignSelf="flex-start">
          <Link to="/">Redirect Home</Link>
        </Button>
      </styled.div>
    </AuthCard>
  )
}
