import { styled } from 'styled-system/jsx'
import { Button } from '~/components/ui/button.tsx'
import { DialogPanel, DialogRoot } from '~/components/ui/dialog.tsx'
import { errorText } from '~/lib/api.ts'
import { useDeleteWebdav } from '../api.ts'

/** 'Confirm Delete' dialog; closes once the deletion has completed. */
export function DeleteWebdavDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const remove = useDeleteWebdav()
  return (
    <DialogRoot
      open={open}
      onOpenChange={(d) => onOpenChange(d.open)}
      role="alertdialog"
      onExitComplete={() => remove.reset()}
    >
      <DialogPanel
        title="Confirm Delete"
        description="Are you sure you want to delete your WebDAV account?"
        footer={
          <>
            <Button variant="outline" onClick={() => onOpenChange(false)} disabled={remove.isPending}>
              Cancel
            </Button>
            <Button
              colorPalette="red"
              loading={remove.isPending}
              onClick={() => remove.mutate(undefined, { onSuccess: () => onOpenChange(false) })}
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
