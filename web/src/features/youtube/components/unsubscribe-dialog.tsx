import { Button } from '~/components/ui/button.tsx'
import { DialogPanel, DialogRoot } from '~/components/ui/dialog.tsx'
import { useUnsubscribe } from '../api.ts'

export type UnsubscribeDialogProps = {
  /** The channel to unsubscribe from; the dialog is open while set. */
  channel: { id: string; title: string } | null
  onClose(): void
}

/**
 * docs/product.md#unsubscribe-confirmation: unsubscribing needs confirmation in 'Confirm Remove Subscription'
 * showing the channel title, with Confirm and Cancel. The card disappears at
 * once (optimistically); it comes back with an error toast if the call fails.
 */
export function UnsubscribeDialog({ channel, onClose }: UnsubscribeDialogProps) {
  const unsubscribe = useUnsubscribe()
  return (
    <DialogRoot open={!!channel} onOpenChange={(d) => !d.open && onClose()} role="alertdialog">
      <DialogPanel
        title="Confirm Remove Subscription"
        description={channel?.title}
        footer={
          <>
            <Button variant="outline" onClick={onClose}>
              Cancel
            </Button>
            <Button
              colorPalette="red"
              onClick={() => {
                if (channel) unsubscribe.mutate(channel.id)
                onClose()
              }}
            >
              Confirm
            </Button>
          </>
        }
      />
    </DialogRoot>
  )
}
