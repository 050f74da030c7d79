import { useQuery } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { styled } from 'styled-system/jsx'
import { Button } from '~/components/ui/button.tsx'
import { Checkbox } from '~/components/ui/checkbox.tsx'
import { DialogPanel, DialogRoot } from '~/components/ui/dialog.tsx'
import { notify } from '~/components/ui/toaster.tsx'
import { useUnsubscribe } from '../api.ts'
import { channelKeptQuery, useRemoveManyKept } from '../keep-api.ts'

export type UnsubscribeDialogProps = {
  /** The channel to unsubscribe from; the dialog is open while set. */
  channel: { id: string; title: string } | null
  onClose(): void
}

const videos = (n: number) => `${n} video${n === 1 ? '' : 's'}`

/**
 * docs/product.md#unsubscribe-confirmation: unsubscribing needs confirmation in 'Confirm Remove Subscription'
 * showing the channel title, with Confirm and Cancel. The card disappears at
 * once (optimistically); it comes back with an error toast if the call fails.
 * When the person keeps videos of the channel, the dialog offers to remove them too (off by
 * default: unfollowing ends the Keep rule, the files stay; decision 316).
 */
export function UnsubscribeDialog({ channel, onClose }: UnsubscribeDialogProps) {
  const unsubscribe = useUnsubscribe()
  const removeKept = useRemoveManyKept()
  const kept = useQuery({ ...channelKeptQuery(channel?.id ?? ''), enabled: !!channel })
  const [alsoRemove, setAlsoRemove] = useState(false)
  useEffect(() => setAlsoRemove(false), [channel?.id])
  const keptIds = channel ? (kept.data ?? []) : []

  const confirm = () => {
    if (!channel) return
    unsubscribe.mutate(channel.id)
    if (alsoRemove && keptIds.length) {
      removeKept.mutate(keptIds, {
        onSuccess: (failed) =>
          failed
            ? notify.error('Some kept videos were not removed', `${videos(failed)} of ${keptIds.length} could not be removed: remove them on the Kept page.`)
            : notify.success(`Removed ${videos(keptIds.length)} kept from ${channel.title}`),
      })
    }
    onClose()
  }

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
            <Button colorPalette="red" onClick={confirm}>
              Confirm
            </Button>
          </>
        }
      >
        {keptIds.length > 0 && (
          <styled.div display="flex" flexDirection="column" gap="2">
            <styled.p textStyle="sm" color="fg.muted">
              You keep {videos(keptIds.length)} of this channel on the server. Unfollowing stops keeping new ones; the files stay unless you remove them
              (here or later on the Kept page).
            </styled.p>
            <Checkbox checked={alsoRemove} onCheckedChange={(d) => setAlsoRemove(d.checked === true)}>
              Also remove the {videos(keptIds.length)} kept from this channel
            </Checkbox>
          </styled.div>
        )}
      </DialogPanel>
    </DialogRoot>
  )
}
