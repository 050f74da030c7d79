import { useState } from 'react'
import { styled } from 'styled-system/jsx'
import { resetPassword, sendReset } from '#server/auth/schema.ts'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { Form } from '~/components/ui/form.tsx'
import { FormActions } from '~/components/ui/form-actions.tsx'
import { DialogPanel, DialogRoot, DialogTrigger } from '~/components/ui/dialog.tsx'
import { TextField } from '~/components/ui/field.tsx'
import { errorText } from '~/lib/api.ts'
import { useForm } from '~/hooks/use-form.ts'
import { useResetPassword, useSendReset } from '../api.ts'

/**
 * docs/product.md#login: two-step Reset Password dialog that ignores outside clicks.
 * Step 1 mails a code; step 2 takes the code and a new password.
 */
export function ResetPasswordDialog() {
  return (
    <DialogRoot closeOnInteractOutside={false}>
      <DialogTrigger asChild>
        <Button variant="link" size="sm">
          Reset Password
        </Button>
      </DialogTrigger>
      <DialogPanel title="Reset Password" description="We e-mail you a code, then you choose a new password.">
        <ResetSteps />
      </DialogPanel>
    </DialogRoot>
  )
}

// Lives inside the dialog content, so closing the dialog starts over at step 1.
function ResetSteps() {
  const [step, setStep] = useState<1 | 2>(1)
  return (
    <styled.div display="flex" flexDirection="column" gap="5">
      <StepIndicator step={step} />
      {step === 1 ? <SendResetStep onSent={() => setStep(2)} /> : <NewPasswordStep />}
    </styled.div>
  )
}

// docs/product.md#login names the steps after their actions: "Send Reset Email", then "Reset Password"
const STEPS = ['Send Reset Email', 'Reset Password'] as const

function StepIndicator({ step }: { step: 1 | 2 }) {
  return (
    <styled.ol display="flex" alignItems="center" gap="3" aria-label="Steps">
      {STEPS.map((label, i) => {
        const n = i + 1
        const reached = step >= n
        return (
          <styled.li
            key={label}
            display="flex"
            alignItems="center"
            gap="2"
            flex={n === 1 ? '1' : undefined}
            color={reached ? 'fg.default' : 'fg.muted'}
            textStyle="sm"
            fontWeight="medium"
            aria-current={step === n ? 'step' : undefined}
          >
            <styled.span
              display="inline-flex"
              alignItems="center"
              justifyContent="center"
              width="6"
              height="6"
              borderRadius="full"
              textStyle="xs"
              bg={reached ? 'colorPalette.default' : 'bg.subtle'}
              color={reached ? 'colorPalette.fg' : 'fg.muted'}
            >
              {n}
            </styled.span>
            {label}
            {n === 1 && <styled.span flex="1" height="1px" bg="border.default" aria-hidden />}
          </styled.li>
        )
      })}
    </styled.ol>
  )
}

function SendResetStep({ onSent }: { onSent: () => void }) {
  const send = useSendReset()
  const form = useForm({ initialValues: { email: '' }, schema: sendReset, required: ['email'] })
  return (
    <Form gap="4" onSubmit={form.handleSubmit((data) => send.mutate(data, { onSuccess: onSent }), send.reset)}>
      {send.isError && <Alert status="error">{errorText(send.error)}</Alert>}
      <TextField label="Email" type="email" autoComplete="username" required {...form.text('email')} />
      <FormActions align="end" submit="Send Reset Email" submitProps={{ loading: send.isPending }} />
    </Form>
  )
}

function NewPasswordStep() {
  const reset = useResetPassword()
  const form = useForm({
    initialValues: { token: '', password: '' },
    schema: resetPassword,
    required: ['token', 'password'],
  })
  return (
    <Form gap="4" onSubmit={form.handleSubmit((data) => reset.mutate(data), reset.reset)}>
      {reset.isSuccess ? (
        <Alert status="success">Password reset Successfully !</Alert>
      ) : reset.isError ? (
        <Alert status="error">{errorText(reset.error)}</Alert>
      ) : (
        <Alert status="success">Reset password code sent to email</Alert>
      )}
      <TextField label="Token" placeholder="Code from the e-mail" autoComplete="one-time-code" required {...form.text('token')} />
      <TextField
        label="New Password"
        type="password"
        autoComplete="new-password"
        required
        helperText="You will be signed out everywhere and your API tokens revoked."
        {...form.text('password')}
      />
      <FormActions align="end" submit="Reset Password" submitProps={{ loading: reset.isPending, disabled: reset.isSuccess }} />
    </Form>
  )
}
