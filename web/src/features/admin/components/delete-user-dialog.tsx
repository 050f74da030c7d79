import { styled } from 'styled-system/jsx'
import { Button } from '~/components/ui/button.tsx'
import { DialogPanel, DialogRoot } from '~/components/ui/dialog.tsx'
import { notify } from '~/components/ui/toaster.tsx'
import { errorText } from '~/lib/api.ts'
import { useDeleteUser } from '../api.ts'

/** Confirm dialog naming the e-mail; closes once the user is deleted. */
export function DeleteUserDialog({ user, onClose }: { user: { id: string; email: string } | null; onClose: () => void }) {
  const remove = useDeleteUser()
  return (
    <DialogRoot open={!!user} onOpenChange={(d) => !d.open && onClose()} role="alertdialog" onExitComplete={() => remove.reset()}>
      <DialogPanel
        title="Delete user"
        description={
          <>
            Delete <strong>{user?.email}</strong> and all their data (jobs, files, subscriptions)? This cannot be undone.
          </>
        }
        footer={
          <>
            <Button variant="outline" onClick={onClose} disabled={remove.isPending}>
              Cancel
            </Button>
            <Button
              colorPalette="red"
              loading={remove.isPending}
              onClick={() =>
                user &&
                remove.mutate(user.id, {
                  onSuccess: () => {
                    notify.success(`${user.email} deleted`)
                    onClose()
                  },
                })
              }
            >
              Delete
            </Button>
          </>
        }
      >
        {remove.isError && (
          <styled.p color="fg.error" textStyle="sm" role="alert">
            {errorText(remove.error)}
          </styled.p>
        )}
      </DialogPanel>
    </DialogRoot>
  )
}
