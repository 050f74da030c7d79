import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx'
import { notify } from '~/components/ui/toaster.tsx'
import { errorText } from '~/lib/api.ts'
import { useDeleteUser } from '../api.ts'

/** 'Delete user' dialog naming the e-mail; closes once the user is deleted. */
export function DeleteUserDialog({ user, onClose }: { user: { id: string; email: string } | null; onClose: () => void }) {
  const remove = useDeleteUser()
  return (
    <ConfirmDialog
      open={!!user}
      onClose={onClose}
      title="Delete user"
      description={
        <>
          Delete <strong>{user?.email}</strong> and all their data (jobs, files, subscriptions)? This cannot be undone.
        </>
      }
      pending={remove.isPending}
      error={remove.isError ? errorText(remove.error) : null}
      onExitComplete={() => remove.reset()}
      onConfirm={() =>
        user &&
        remove.mutate(user.id, {
          onSuccess: () => {
            notify.success(`${user.email} deleted`)
            onClose()
          },
        })
      }
    />
  )
}
