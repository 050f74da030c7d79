import { useQuery } from '@tanstack/react-query'
import { UploadIcon } from 'lucide-react'
import { type FormEvent, useId, useRef, useState } from 'react'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { DialogPanel, DialogRoot } from '~/components/ui/dialog.tsx'
import { FormActions } from '~/components/ui/form-actions.tsx'
import { TextField } from '~/components/ui/field.tsx'
import { TabsContent, TabsIndicator, TabsList, TabsRoot, TabsTrigger } from '~/components/ui/tabs.tsx'
import { errorText } from '~/lib/api.ts'
import { useImportSubscriptions, useSubscribe, useUpdateUserChannel, userChannelQuery, youtubeModeQuery } from '../api.ts'

export type UpdateSubscriptionsDialogProps = { open: boolean; onOpenChange(open: boolean): void }

/**
 * docs/product.md#subscriptions-page: the 'Update Subscriptions' modal: the 'Subscriptions' tab adds a channel
 * by id or handle (and imports a subscriptions file); the 'User Channel' tab
 * connects the personal channel whose public subscriptions sync.
 */
export function UpdateSubscriptionsDialog({ open, onOpenChange }: UpdateSubscriptionsDialogProps) {
  return (
    <DialogRoot open={open} onOpenChange={(d) => onOpenChange(d.open)}>
      <DialogPanel title="Update Subscriptions" maxW="lg">
        <TabsRoot defaultValue="subscriptions" variant="line">
          <TabsList>
            <TabsTrigger value="subscriptions">Subscriptions</TabsTrigger>
            <TabsTrigger value="user-channel">User Channel</TabsTrigger>
            <TabsIndicator />
          </TabsList>
          <TabsContent value="subscriptions">
            <styled.div display="flex" flexDirection="column" gap="6">
              <AddSubscriptionForm />
              <ImportSubscriptionsForm />
            </styled.div>
          </TabsContent>
          <TabsContent value="user-channel">
            <UserChannelForm />
          </TabsContent>
        </TabsRoot>
      </DialogPanel>
    </DialogRoot>
  )
}

/**
 * A channel id or handle typed into one field and sent as typed
 * (docs/product.md#channel-fields); the field empties on success. The form stays
 * inside the dialog (no outer form submits).
 */
function useChannelInput(mutation: { mutate(value: string, options: { onSuccess(): void }): void }) {
  const [value, setValue] = useState('')
  const submit = (e: FormEvent) => {
    e.preventDefault()
    e.stopPropagation()
    if (!value.trim()) return
    mutation.mutate(value, { onSuccess: () => setValue('') })
  }
  const field = {
    name: 'channel_id',
    placeholder: 'UC… or @handle',
    value,
    onChange: (e: { target: { value: string } }) => setValue(e.target.value),
    autoComplete: 'off',
    required: true,
  }
  return { field, submit, empty: !value.trim() }
}

function AddSubscriptionForm() {
  const subscribe = useSubscribe()
  const { field, submit, empty } = useChannelInput(subscribe)
  return (
    <styled.form onSubmit={submit} display="flex" flexDirection="column" gap="3" aria-label="Add subscription">
      <TextField label="Channel ID or Handle" {...field} />
      <FormActions align="end" submit="Subscribe" submitProps={{ loading: subscribe.isPending, disabled: empty }} />
      {subscribe.isSuccess && <Alert status="success">Added Subscription Successfully</Alert>}
      {subscribe.isError && <Alert status="error">{errorText(subscribe.error)}</Alert>}
    </styled.form>
  )
}

const IMPORT_FORMATS = { 'takeout-csv': 'Google Takeout CSV', 'newpipe-json': 'NewPipe JSON', opml: 'OPML' } as const

function ImportSubscriptionsForm() {
  const importer = useImportSubscriptions()
  const [file, setFile] = useState<File | null>(null)
  const input = useRef<HTMLInputElement>(null)
  const inputId = useId()
  const submit = (e: FormEvent) => {
    e.preventDefault()
    e.stopPropagation()
    if (!file) return
    importer.mutate(file, {
      onSuccess: () => {
        setFile(null)
        if (input.current) input.current.value = ''
      },
    })
  }
  const result = importer.data
  return (
    <styled.form onSubmit={submit} display="flex" flexDirection="column" gap="3" borderTopWidth="1px" pt="5" aria-label="Import subscriptions">
      <styled.div display="flex" flexDirection="column" gap="1">
        <styled.label htmlFor={inputId} fontWeight="medium" textStyle="sm">
          Import from a file
        </styled.label>
        <styled.p textStyle="xs" color="fg.muted">
          Google Takeout subscriptions.csv, a NewPipe export (JSON) or an OPML feed list.
        </styled.p>
      </styled.div>
      <styled.input
        ref={input}
        id={inputId}
        type="file"
        name="file"
        accept=".csv,.json,.opml,.xml,text/csv,application/json,text/xml,application/xml"
        onChange={(e) => setFile(e.target.files?.[0] ?? null)}
        textStyle="sm"
        color="fg.muted"
        css={{
          '&::file-selector-button': {
            me: '3',
            px: '3',
            py: '1.5',
            borderRadius: 'l2',
            borderWidth: '1px',
            bg: 'gray.a2',
            color: 'fg.default',
            cursor: 'pointer',
          },
        }}
      />
      <FormActions
        align="end"
        submit={
          <>
            <UploadIcon />
            Import
          </>
        }
        submitProps={{ variant: 'outline', loading: importer.isPending, disabled: !file }}
      />
      {result && (
        <Alert status="success" title="Import finished">
          {IMPORT_FORMATS[result.format]}: {result.added} added, {result.alreadyPresent} already subscribed, {result.notFound} not found.
        </Alert>
      )}
      {importer.isError && <Alert status="error">{errorText(importer.error)}</Alert>}
    </styled.form>
  )
}

function UserChannelForm() {
  // without a key the sync cannot run (POST answers 'Needs a YouTube API key.'): say so, and what works instead
  const mode = useQuery(youtubeModeQuery)
  const keyless = mode.data?.mode === 'feed'
  // and there is no channel to ask for (its 404 would only be noise)
  const current = useQuery({ ...userChannelQuery, enabled: mode.data?.mode === 'api' })
  const update = useUpdateUserChannel()
  const { field, submit, empty } = useChannelInput(update)
  const noteId = useId()
  return (
    <styled.form onSubmit={submit} display="flex" flexDirection="column" gap="3" aria-label="User channel">
      {keyless && (
        <styled.div id={noteId}>
          <Alert status="info" title="Needs a YouTube API key">
            Syncing your channel's subscriptions needs a YouTube API key, and this server has none. Add channels one by one, or import a
            subscriptions file, on the Subscriptions tab: that works without a key.
          </Alert>
        </styled.div>
      )}
      <TextField label="Current Channel ID" name="current_channel_id" value={current.data?.id ?? ''} placeholder={current.isFetching ? 'Loading…' : 'None'} readOnly />
      <TextField label="Channel ID" helperText="Your own channel: its public subscriptions are added here and kept in sync." {...field} />
      <FormActions
        align="end"
        submit="Update"
        submitProps={{ loading: update.isPending, disabled: empty || keyless, 'aria-describedby': keyless ? noteId : undefined }}
      />
      {update.isSuccess && <Alert status="success">Updated Channel Successfully</Alert>}
      {update.isError && <Alert status="error">{errorText(update.error)}</Alert>}
    </styled.form>
  )
}
