import type { ReactNode } from 'react'
import { styled } from 'styled-system/jsx'
import { Button } from './button.tsx'
import { DialogPanel, DialogRoot } from './dialog.tsx'

export type ConfirmDialogProps = {
  open: boolean
  onClose(): void
  title: string
  description: ReactNode
  /** The red confirm button's label (default Delete). */
  confirm?: string
  /** The action runs: the confirm button spins, Cancel waits. */
  pending?: boolean
  /** The action's error, shown in red under the text. */
  error?: string | null
  onConfirm(): void
  onExitComplete?(): void
}

/** An alert dialog asking before a destructive action: Cancel and a red confirm button. */
export function ConfirmDialog({ open, onClose, title, description, confirm = 'Delete', pending, error, onConfirm, onExitComplete }: ConfirmDialogProps) {
  return (
    <DialogRoot open={open} onOpenChange={(d) => !d.open && onClose()} role="alertdialog" onExitComplete={onExitComplete}>
      <DialogPanel
        title={title}
        description={description}
        footer={
          <>
            <Button variant="outline" onClick={onClose} disabled={pending}>
              Cancel
            </Button>
            <Button colorPalette="red" loading={pending} onClick={onConfirm}>
              {confirm}
            </Button>
          </>
        }
      >
        {error && (
          <styled.p color="fg.error" textStyle="sm" role="alert">
            {error}
          </styled.p>
        )}
      </DialogPanel>
    </DialogRoot>
  )
}
