import { styled } from 'styled-system/jsx'
import { Checkbox } from '~/components/ui/checkbox.tsx'
import { changePasswordBody } from '#server/auth/schema.ts'
import { Form } from '~/components/ui/form.tsx'
import { FormActions } from '~/components/ui/form-actions.tsx'
import { FormResult } from '~/components/ui/form-result.tsx'
import { TextField } from '~/components/ui/field.tsx'
import { useForm } from '~/hooks/use-form.ts'
import { useChangePassword } from '../api.ts'

const empty = { currentPassword: '', password: '', keepTokens: false }

/** Account tab: current and new password; the server ends every other session and, unless kept, the API tokens, the app password and the podcast addresses. */
export function ChangePasswordForm() {
  const change = useChangePassword()
  const form = useForm({ initialValues: empty, schema: changePasswordBody, required: ['currentPassword', 'password'] })
  const submit = form.handleSubmit((data) => change.mutate(data, { onSuccess: () => form.reset() }))
  return (
    <Form onSubmit={submit} aria-labelledby="change-password-title">
      <styled.h2 id="change-password-title" textStyle="lg" fontWeight="semibold">
        Change Password
      </styled.h2>
      <TextField label="Current Password" type="password" autoComplete="current-password" required {...form.text('currentPassword')} />
      <TextField
        label="New Password"
        type="password"
        autoComplete="new-password"
        required
        helperText="At least 8 characters. Your other devices will be signed out; unless you keep them below, your API tokens revoked, your music players' app password ended and your podcast feed addresses changed."
        {...form.text('password')}
      />
      <Checkbox checked={form.values.keepTokens} onCheckedChange={(d) => form.setValue('keepTokens', d.checked === true)}>
        Keep my API tokens, app password and podcast addresses
      </Checkbox>
      <FormResult success={change.isSuccess && 'Password changed'} error={change.error} />
      <FormActions submit="Change Password" submitProps={{ loading: change.isPending }} />
    </Form>
  )
}
