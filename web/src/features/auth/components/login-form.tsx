import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Link, useNavigate } from '@tanstack/react-router'
import { styled } from 'styled-system/jsx'
import { credentials } from '#server/auth/schema.ts'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { Form } from '~/components/ui/form.tsx'
import { FormActions } from '~/components/ui/form-actions.tsx'
import { TextField } from '~/components/ui/field.tsx'
import { errorText, isStatus } from '~/lib/api.ts'
import { safeNext } from '~/lib/session.ts'
import { useForm } from '~/hooks/use-form.ts'
import { providersQuery, useLogin } from '../api.ts'
import { AuthCard } from './auth-card.tsx'
import { ProviderSignIn } from './provider-sign-in.tsx'
import { ResendVerification } from './resend-verification.tsx'
import { ResetPasswordDialog } from './reset-password-dialog.tsx'

/**
 * docs/product.md#login: email, password; Submit, Clear, Create Account; the Reset Password dialog;
 * "Sign in with {OIDC_NAME}" (docs/product.md#sign-in-providers).
 */
export function LoginForm({ next, providerError, email, reset }: { next?: string; providerError?: string; email?: string; reset?: boolean }) {
  const navigate = useNavigate()
  const login = useLogin()
  // SIGNUP=oidc-only: no password sign-up to point to
  const providers = useQuery(providersQuery)
  const form = useForm({
    initialValues: { email: email ?? '', password: '' },
    schema: credentials,
    required: ['email', 'password'],
  })

  // after a password reset: the e-mail filled in, the success said here too (the dialog has closed)
  const [wasReset, setWasReset] = useState(false)
  const afterReset = (address: string) => {
    if (address) form.setValue('email', address)
    setWasReset(true)
  }

  const submit = form.handleSubmit((data) =>
    login.mutate(data, {
      // back to the remembered page (path and query), else home
      onSuccess: () => navigate({ href: safeNext(next) ?? '/', replace: true }),
    }),
  )

  return (
    <AuthCard title="Login" description="Sign in to your Tunefeed account.">
      <Form onSubmit={submit}>
        <ProviderSignIn next={safeNext(next)} failure={providerError} />
        {wasReset && !login.isError && <Alert status="success">Password reset Successfully ! Log in with your new password.</Alert>}
        {login.isError && <Alert status="error">{errorText(login.error)}</Alert>}
        {login.isError && isStatus(login.error, 401) && errorText(login.error) === 'Account is unverified.' && (
          <ResendVerification email={form.values.email} />
        )}
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
            <ResetPasswordDialog email={form.values.email || email} defaultOpen={reset} onDone={afterReset} />
          </styled.div>
        </FormActions>
        {providers.data?.passwordSignup !== false && (
          <styled.div borderTopWidth="1px" pt="5" display="flex" alignItems="center" justifyContent="space-between" gap="3" flexWrap="wrap">
            <styled.span color="fg.muted" textStyle="sm">
              New to Tunefeed?
            </styled.span>
            <Button variant="subtle" asChild>
              <Link to="/create">Create Account</Link>
            </Button>
          </styled.div>
        )}
      </Form>
    </AuthCard>
  )
}
