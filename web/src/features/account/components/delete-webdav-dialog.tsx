import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx'
import { errorText } from '~/lib/api.ts'
import { useDeleteWebdav } from '../api.ts'

/** 'Confirm Delete' dialog; closes once the deletion has completed. */
export function DeleteWebdavDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const remove = useDeleteWebdav()
  return (
    <ConfirmDialog
      open={open}
      onClose={() => onOpenChange(false)}
      title="Confirm Delete"
      description="Are you sure you want to delete your WebDAV account?"
      pending={remove.isPending}
      error={remove.isError ? errorText(remove.error) : null}
      onExitComplete={() => remove.reset()}
      onConfirm={() => remove.mutate(undefined, { onSuccess: () => onOpenChange(false) })}
    />
  )
}
