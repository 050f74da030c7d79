import { useEffect, useRef, useState } from 'react'
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

/** How long 'Password reset Successfully !' stays in the dialog before it closes by itself. */
export const RESET_DONE_CLOSE_MS = 2500

/**
 * docs/product.md#login: two-step Reset Password dialog that ignores outside clicks.
 * Step 1 mails a code; step 2 takes the code and a new password. After the reset the
 * dialog shows the success, then closes (at once with "Log in") and hands the e-mail
 * to the login form (`onDone`).
 */
export function ResetPasswordDialog({ email, defaultOpen, onDone }: { email?: string; defaultOpen?: boolean; onDone?: (email: string) => void }) {
  const [open, setOpen] = useState(!!defaultOpen)
  const finished = useRef(false)
  const done = (address: string) => {
    finished.current = true
    setOpen(false)
    onDone?.(address)
  }
  return (
    <DialogRoot
      closeOnInteractOutside={false}
      open={open}
      onOpenChange={(d) => {
        if (d.open) finished.current = false
        setOpen(d.open)
      }}
      // after a reset, on to the login form's password (the e-mail is filled in); else back to the trigger
      finalFocusEl={() => (finished.current ? document.querySelector<HTMLElement>('input[autocomplete="current-password"]') : null)}
    >
      <DialogTrigger asChild>
        <Button variant="link" size="sm">
          Reset Password
        </Button>
      </DialogTrigger>
      <DialogPanel title="Reset Password" description="We e-mail you a reset code, then you choose a new password.">
        <ResetSteps email={email ?? ''} onDone={done} />
      </DialogPanel>
    </DialogRoot>
  )
}

// Lives inside the dialog content, so closing the dialog starts over at step 1.
function ResetSteps({ email, onDone }: { email: string; onDone: (email: string) => void }) {
  const [step, setStep] = useState<1 | 2>(1)
  const [address, setAddress] = useState(email)
  return (
    <styled.div display="flex" flexDirection="column" gap="5">
      <StepIndicator step={step} />
      {step === 1 ? (
        <SendResetStep
          email={email}
          onSent={(sentTo) => {
            setAddress(sentTo)
            setStep(2)
          }}
        />
      ) : (
        <NewPasswordStep onDone={() => onDone(address)} />
      )}
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

function SendResetStep({ email, onSent }: { email: string; onSent: (email: string) => void }) {
  const send = useSendReset()
  const form = useForm({ initialValues: { email }, schema: sendReset, required: ['email'] })
  return (
    <Form gap="4" onSubmit={form.handleSubmit((data) => send.mutate(data, { onSuccess: () => onSent(data.email) }), send.reset)}>
      {send.isError && <Alert status="error">{errorText(send.error)}</Alert>}
      <TextField label="Email" type="email" autoComplete="username" required {...form.text('email')} />
      <FormActions align="end" submit="Send Reset Email" submitProps={{ loading: send.isPending }} />
    </Form>
  )
}

function NewPasswordStep({ onDone }: { onDone: () => void }) {
  const reset = useResetPassword()
  // the success is read, then the dialog gets out of the way (the login form has the e-mail)
  const latestDone = useRef(onDone)
  latestDone.current = onDone
  useEffect(() => {
    if (!reset.isSuccess) return
    const timer = setTimeout(() => latestDone.current(), RESET_DONE_CLOSE_MS)
    return () => clearTimeout(timer)
  }, [reset.isSuccess])
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
      {/* the mail calls it a reset code; docs/product.md#login names the field the token (decision 181) */}
      <TextField label="Reset code (token)" placeholder="Code from the e-mail" autoComplete="one-time-code" required {...form.text('token')} />
      <TextField
        label="New Password"
        type="password"
        autoComplete="new-password"
        required
        helperText="You will be signed out everywhere, your API tokens and music players' app password revoked and your podcast feed addresses changed."
        {...form.text('password')}
      />
      {reset.isSuccess ? (
        <styled.div display="flex" justifyContent="flex-end">
          <Button type="button" onClick={onDone} autoFocus>
            Log in
          </Button>
        </styled.div>
      ) : (
        <FormActions align="end" submit="Reset Password" submitProps={{ loading: reset.isPending }} />
      )}
    </Form>
  )
}
