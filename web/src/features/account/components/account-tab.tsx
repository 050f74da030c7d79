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

/** Read-only email and admin flag, and the red Logout button. */
export function AccountTab({ user }: { user: SessionUser }) {
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
      </CardBody>
    </CardRoot>
  )
}
