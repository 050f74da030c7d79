import { Button } from '~/components/ui/button.tsx'
import { styled } from 'styled-system/jsx'
import { errorText } from '~/lib/api.ts'
import { useSendVerification } from '../api.ts'

/** Under a login refused with 'Account is unverified.': mails a new verification link. */
export function ResendVerification({ email }: { email: string }) {
  const send = useSendVerification()
  return (
    <styled.div display="flex" alignItems="center" gap="3" flexWrap="wrap">
      <Button variant="outline" size="sm" loading={send.isPending} onClick={() => send.mutate({ email })}>
        Resend verification email
      </Button>
      {send.isSuccess && (
        <styled.span color="green.text" textStyle="sm" role="status">
          Verify account by clicking link sent to email
        </styled.span>
      )}
      {send.isError && (
        <styled.span color="fg.error" textStyle="sm" role="alert">
          {errorText(send.error)}
        </styled.span>
      )}
    </styled.div>
  )
}
