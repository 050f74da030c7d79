import { useQuery } from '@tanstack/react-query'
import { useEffect } from 'react'
import { styled } from 'styled-system/jsx'
import { notificationSettingsBody } from '#server/notifications/schema.ts'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { CardBody, CardRoot } from '~/components/ui/card.tsx'
import { Checkbox } from '~/components/ui/checkbox.tsx'
import { TextField } from '~/components/ui/field.tsx'
import { Form } from '~/components/ui/form.tsx'
import { FormActions } from '~/components/ui/form-actions.tsx'
import { Spinner } from '~/components/ui/spinner.tsx'
import { useForm } from '~/hooks/use-form.ts'
import { errorText } from '~/lib/api.ts'
import { notificationsQuery, useSaveNotifications, useTestNotification } from '../api.ts'

const events = [
  ['onJobFinished', 'A music job finished'],
  ['onJobFailed', 'A music job failed (with its reason)'],
  ['onNewVideos', 'New videos from followed channels (one message per refresh)'],
] as const

/** Notifications tab: an ntfy topic and/or a webhook, what to send, and "Send test". */
export function NotificationsTab() {
  const query = useQuery(notificationsQuery)
  if (!query.data) return query.error ? <Alert status="error">{errorText(query.error)}</Alert> : <Spinner label="Loading" />
  return <NotificationsForm saved={query.data} />
}

type Saved = { ntfyUrl: string | null; webhookUrl: string | null; onJobFinished: boolean; onJobFailed: boolean; onNewVideos: boolean }
const toForm = (s: Saved) => ({ ...s, ntfyUrl: s.ntfyUrl ?? '', webhookUrl: s.webhookUrl ?? '' })

function NotificationsForm({ saved }: { saved: Saved }) {
  const save = useSaveNotifications()
  const test = useTestNotification()
  const form = useForm({ initialValues: toForm(saved), schema: notificationSettingsBody })
  // editing starts from the saved values; follow them when they change (`reset` is a new function each render)
  const { reset } = form
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new saved value resets the form
  useEffect(() => reset(toForm(saved)), [saved])
  const hasUrl = !!(saved.ntfyUrl || saved.webhookUrl)
  return (
    <CardRoot>
      <CardBody pt="6">
        <Form onSubmit={form.handleSubmit((data) => save.mutate(data))}>
          <TextField
            label="ntfy topic URL"
            type="url"
            placeholder="https://ntfy.sh/my-tunefeed-topic"
            helperText={saved.ntfyUrl ? 'Messages are published to this topic. The saved URL shows only its scheme and host: leave it as it is to keep it.' : 'Messages are published to this topic.'}
            {...form.text('ntfyUrl')}
          />
          <TextField
            label="Webhook URL"
            type="url"
            placeholder="https://example.com/hooks/tunefeed"
            helperText={saved.webhookUrl ? 'Receives each message as JSON (POST). The saved URL shows only its scheme and host: leave it as it is to keep it.' : 'Receives each message as JSON (POST).'}
            {...form.text('webhookUrl')}
          />
          <styled.fieldset display="flex" flexDirection="column" gap="3">
            <styled.legend textStyle="sm" fontWeight="medium" mb="2">
              What to send
            </styled.legend>
            {events.map(([key, label]) => (
              <Checkbox key={key} checked={form.values[key]} onCheckedChange={(d) => form.setValue(key, d.checked === true)}>
                {label}
              </Checkbox>
            ))}
          </styled.fieldset>
          {save.isSuccess && <Alert status="success">Notifications Updated</Alert>}
          {save.isError && <Alert status="error">{errorText(save.error)}</Alert>}
          {test.isSuccess && <Alert status="success">Test message sent. {test.data.detail}</Alert>}
          {test.isError && <Alert status="error">{errorText(test.error)}</Alert>}
          <FormActions submit="Save" submitProps={{ loading: save.isPending }}>
            <Button variant="outline" loading={test.isPending} disabled={!hasUrl} onClick={() => test.mutate()}>
              Send test
            </Button>
          </FormActions>
        </Form>
      </CardBody>
    </CardRoot>
  )
}
