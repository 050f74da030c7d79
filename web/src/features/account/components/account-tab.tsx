import { LogOutIcon } from 'lucide-react'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { CardBody, CardRoot } from '~/components/ui/card.tsx'
import { Checkbox } from '~/components/ui/checkbox.tsx'
import { TextField } from '~/components/ui/field.tsx'
import { errorText } from '~/lib/api.ts'
import type { SessionUser } from '~/lib/session.ts'
import { useLogout } from '../api.ts'
import { ChangePasswordForm } from './change-password-form.tsx'
import { DeleteAccountDialog } from './delete-account-dialog.tsx'
import { SignInProviders } from './sign-in-providers.tsx'

/** Read-only email and admin flag, the red Logout button; linking sign-in providers; changing the password; deleting the account. */
export function AccountTab({ user, providerLinked, providerError }: { user: SessionUser; providerLinked?: boolean; providerError?: string }) {
  const logout = useLogout()
  return (
    <CardRoot>
      <CardBody pt="6" display="flex" flexDirection="column" gap="5">
        {logout.isError && <Alert status="error">{errorText(logout.error)}</Alert>}
        <TextField label="Email" value={user.email} readOnly />
        <Checkbox checked={user.admin} readOnly>
          Admin
        </Checkbox>
        <styled.div>
          <Button colorPalette="red" loading={logout.isPending} onClick={() => logout.mutate()}>
            <LogOutIcon />
            Logout
          </Button>
        </styled.div>
        <SignInProviders linked={providerLinked} failure={providerError} />
        <styled.hr />
        <ChangePasswordForm />
        <styled.hr />
        <styled.div display="flex" flexDirection="column" gap="3" alignItems="flex-start">
          <styled.h2 textStyle="lg" fontWeight="semibold">
            Leave Tunefeed
          </styled.h2>
          <styled.p color="fg.muted" textStyle="sm">
            Deleting your account removes everything in it at once.
          </styled.p>
          <DeleteAccountDialog />
        </styled.div>
      </CardBody>
    </CardRoot>
  )
}
