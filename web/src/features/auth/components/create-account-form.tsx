import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { styled } from 'styled-system/jsx'
import { z } from 'zod'
import { ACCOUNT_EXISTS, createAccount } from '#server/auth/schema.ts'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { Form } from '~/components/ui/form.tsx'
import { FormActions } from '~/components/ui/form-actions.tsx'
import { Checkbox } from '~/components/ui/checkbox.tsx'
import { TextLink } from '~/components/ui/text-link.tsx'
import { TextField } from '~/components/ui/field.tsx'
import { errorText } from '~/lib/api.ts'
import { useForm } from '~/hooks/use-form.ts'
import { providersQuery, useCreateAccount } from '../api.ts'
import { AuthCard } from './auth-card.tsx'
import { ProviderSignIn } from './provider-sign-in.tsx'

const schema = createAccount.extend({ agree: z.literal(true, { error: 'Required' }) })

/** docs/product.md#create-account: email, password, agree to the terms; Submit and Clear. */
export function CreateAccountForm() {
  const providers = useQuery(providersQuery)
  if (providers.data?.passwordSignup === false) return <ProviderSignUp />
  return <PasswordSignUp />
}

/** SIGNUP=oidc-only: accounts come from the identity provider. */
function ProviderSignUp() {
  return (
    <AuthCard title="Create Account" description="Accounts are made by signing in with your identity provider.">
      <styled.div display="flex" flexDirection="column" gap="5">
        <Alert status="info">Sign-up with a password is turned off.</Alert>
        <ProviderSignIn divider={false} />
      </styled.div>
    </AuthCard>
  )
}

/** Without SMTP_URL the mail is not sent: where the link went instead (issue 37, polish). */
export const NO_SMTP_NOTE =
  'This server has no mail server set up (SMTP_URL), so no e-mail was sent: the link is in the server\'s log (the line "mail saved (no SMTP_URL)") and in an .eml file under its DATA_DIR/mail. Ask its administrator for it.'

function PasswordSignUp() {
  const create = useCreateAccount()
  const providers = useQuery(providersQuery)
  const form = useForm({
    initialValues: { email: '', password: '', agree: false as boolean },
    schema,
    required: ['email', 'password', 'agree'],
  })

  return (
    <AuthCard title="Create Account" description="Sign up, then confirm your e-mail address.">
      <Form
        onSubmit={form.handleSubmit(
          // the form clears after success: the values are not left for the next person
          ({ email, password }) => create.mutate({ email, password }, { onSuccess: () => form.reset() }),
          create.reset,
        )}
      >
        {create.isSuccess && (
          <Alert status="success">
            Verify account by clicking link sent to email
            {providers.data?.mail === 'file' && (
              <styled.span display="block" mt="1">
                {NO_SMTP_NOTE}
              </styled.span>
            )}
          </Alert>
        )}
        {create.isError && (
          <Alert status="error">
            {errorText(create.error)}
            {errorText(create.error) === ACCOUNT_EXISTS && (
              // a way on: log in with that address, or reset its password
              <styled.span display="block" mt="1">
                <TextLink to="/login" search={{ email: form.values.email }}>
                  Login
                </TextLink>{' '}
                or{' '}
                <TextLink to="/login" search={{ email: form.values.email, reset: '1' }}>
                  Reset Password
                </TextLink>
              </styled.span>
            )}
          </Alert>
        )}
        <TextField label="Email" type="email" autoComplete="email" required {...form.text('email')} />
        <TextField
          label="Password"
          type="password"
          autoComplete="new-password"
          helperText="At least 8 characters."
          required
          {...form.text('password')}
        />
        <styled.div display="flex" flexDirection="column" gap="1.5">
          <Checkbox
            checked={form.values.agree}
            onCheckedChange={(d) => form.setValue('agree', d.checked === true)}
            invalid={!!form.errors.agree}
          >
            I agree to the{' '}
            <TextLink to="/terms" target="_blank">
              Terms of Service
            </TextLink>{' '}
            and{' '}
            <TextLink to="/privacy" target="_blank">
              Privacy Policy
            </TextLink>
          </Checkbox>
          {form.errors.agree && (
            <styled.span color="fg.error" textStyle="sm">
              {form.errors.agree}
            </styled.span>
          )}
        </styled.div>
        <FormActions
          submit="Submit"
          submitProps={{ loading: create.isPending }}
          onClear={() => {
            form.reset()
            create.reset()
          }}
        />
        <styled.div borderTopWidth="1px" pt="5" display="flex" alignItems="center" justifyContent="space-between" gap="3">
          <styled.span color="fg.muted" textStyle="sm">
            Already have an account?
          </styled.span>
          <Button variant="subtle" asChild>
            <Link to="/login">Login</Link>
          </Button>
        </styled.div>
      </Form>
    </AuthCard>
  )
}
