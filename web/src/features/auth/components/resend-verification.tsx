import { Button } from '~/components/ui/button.tsx'
import { FormResult } from '~/components/ui/form-result.tsx'
import { styled } from 'styled-system/jsx'
import { useSendVerification } from '../api.ts'

/** Under a login refused with 'Account is unverified.': mails a new verification link. */
export function ResendVerification({ email }: { email: string }) {
  const send = useSendVerification()
  return (
    <styled.div display="flex" alignItems="center" gap="3" flexWrap="wrap">
      <Button variant="outline" size="sm" loading={send.isPending} onClick={() => send.mutate({ email })}>
        Resend verification email
      </Button>
      <FormResult success={send.isSuccess && 'Verify account by clicking link sent to email'} error={send.error} />
    </styled.div>
  )
}
