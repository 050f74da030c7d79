import { Link, useNavigate } from '@tanstack/react-router'
import { styled } from 'styled-system/jsx'
import { credentials } from '#server/auth/schema.ts'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { Form } from '~/components/ui/form.tsx'
import { FormActions } from '~/components/ui/form-actions.tsx'
import { TextField } from '~/components/ui/field.tsx'
import { errorText } from '~/lib/api.ts'
import { safeNext } from '~/lib/session.ts'
import { useForm } from '~/hooks/use-form.ts'
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
      <Form onSubmit={submit}>
        {login.isError && <Alert status="error">{errorText(login.error)}</Alert>}
        <TextField label="Email" type="email" autoComplete="username" required {...form.text('email')} />
        <TextField label="Password" type="password" autoComplete="current-password" required {...form.text('password')} />
        <FormActions
          submit="Submit"
          submitProps={{ loading: login.isPending }}
          onClear={() => {
            form.reset()
            login.reset()
          }}
        >
          <styled.div ms="auto">
            <ResetPasswordDialog />
          </styled.div>
        </FormActions>
        <styled.div borderTopWidth="1px" pt="5" display="flex" alignItems="center" justifyContent="space-between" gap="3" flexWrap="wrap">
          <styled.span color="fg.muted" textStyle="sm">
            New to Tunefeed?
          </styled.span>
          <Button variant="subtle" asChild>
            <Link to="/create">Create Account</Link>
          </Button>
        </styled.div>
      </Form>
    </AuthCard>
  )
}
