import { useState } from 'react'
import { styled } from 'styled-system/jsx'
import { deleteAccountBody } from '#server/auth/schema.ts'
import { Button } from '~/components/ui/button.tsx'
import { DialogPanel, DialogRoot } from '~/components/ui/dialog.tsx'
import { TextField } from '~/components/ui/field.tsx'
import { Form } from '~/components/ui/form.tsx'
import { useForm } from '~/hooks/use-form.ts'
import { errorText } from '~/lib/api.ts'
import { useDeleteAccount } from '../api.ts'

/** The red 'Delete Account' button and its dialog, which asks for the password before anything is removed. */
export function DeleteAccountDialog() {
  const [open, setOpen] = useState(false)
  const remove = useDeleteAccount()
  const form = useForm({ initialValues: { password: '' }, schema: deleteAccountBody, required: ['password'] })
  const submit = form.handleSubmit((data) => remove.mutate(data))
  return (
    <>
      <Button variant="outline" colorPalette="red" color="red.text" borderColor="red.a7" onClick={() => setOpen(true)}>
        Delete Account
      </Button>
      <DialogRoot
        open={open}
        onOpenChange={(d) => setOpen(d.open)}
        role="alertdialog"
        closeOnInteractOutside={false}
        onExitComplete={() => {
          remove.reset()
          form.reset()
        }}
      >
        <DialogPanel
          title="Delete Account"
          description="This removes your account and everything in it: jobs and their files, subscriptions, API tokens, sessions and your WebDAV link. It cannot be undone."
        >
          <Form onSubmit={submit}>
            <TextField label="Password" type="password" autoComplete="current-password" required {...form.text('password')} />
            {remove.isError && (
              <styled.p color="fg.error" textStyle="sm" role="alert">
                {errorText(remove.error)}
              </styled.p>
            )}
            <styled.div display="flex" gap="3" justifyContent="flex-end">
              <Button variant="outline" onClick={() => setOpen(false)} disabled={remove.isPending}>
                Cancel
              </Button>
              <Button type="submit" colorPalette="red" loading={remove.isPending}>
                Delete Account
              </Button>
            </styled.div>
          </Form>
        </DialogPanel>
      </DialogRoot>
    </>
  )
}
