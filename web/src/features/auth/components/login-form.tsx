import { Link, useNavigate } from '@tanstack/react-router'
import { styled } from 'styled-system/jsx'
import { credentials } from '../../../../../src/auth/schema.ts'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { TextField } from '~/components/ui/field.tsx'
import { errorText } from '~/lib/api.ts'
import { safeNext } from '~/lib/session.ts'
import { useForm } from '~/lib/use-form.ts'
import { useLogin } from '../api.ts'
import { AuthCard } from './auth-card.tsx'
import { ResetPasswordDialog } from './reset-password-dialog.tsx'

/** docs/product.md#login: email, password; Submit, Clear, Create Account; the Reset Password dialog. */
export function LoginForm({ next }: { next?: string }) {
  const navigate = useNavigate()
  const login = useLogin()
  const form = useForm({
    initialValues: { email: '', password: '' },
    schema: credentials,
    required: ['email', 'password'],
  })

  const submit = form.handleSubmit((data) =>
    login.mutate(data, {
      // back to the remembered page (path and query), else home
      onSuccess: () => navigate({ href: safeNext(next) ?? '/', replace: true }),
    }),
  )

  return (
    <AuthCard title="Login" description="Sign in to your Tunefeed account.">
      <styled.form onSubmit={submit} noValidate display="flex" flexDirection="column" gap="5">
        {login.isError && <Alert status="error">{errorText(login.error)}</Alert>}
        <TextField label="Email" type="email" autoComplete="username" required {...form.text('email')} />
        <TextField label="Password" type="password" autoComplete="current-password" required {...form.text('password')} />
        <styled.div display="flex" gap="3" flexWrap="wrap" alignItems="center">
          <Button type="submit" loading={login.isPending}>
            Submit
          </Button>
          <Button
            variant="outline"
            onClick={() => {
              form.reset()
              login.reset()
            }}
          >
            Clear
          </Button>
          <styled.div ms="auto">
            <ResetPasswordDialog />
          </styled.div>
        </styled.div>
        <styled.div borderTopWidth="1px" pt="5" display="flex" alignItems="center" justifyContent="space-between" gap="3" flexWrap="wrap">
          <styled.span color="fg.muted" textStyle="sm">
            New to Tunefeed?
          </styled.span>
          <Button variant="subtle" asChild>
            <Link to="/create">Create Account</Link>
          </Button>
        </styled.div>
      </styled.form>
    </AuthCard>
  )
}
