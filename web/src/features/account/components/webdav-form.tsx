import { useEffect, useState } from 'react'
import { WEBDAV_PROBLEMS, type WebdavProblem, webdavAccount } from '#server/webdav/schema.ts'
import { Button } from '~/components/ui/button.tsx'
import { Form } from '~/components/ui/form.tsx'
import { FormActions } from '~/components/ui/form-actions.tsx'
import { FormResult } from '~/components/ui/form-result.tsx'
import { TextField } from '~/components/ui/field.tsx'
import { ApiError, errorText } from '~/lib/api.ts'
import { useForm } from '~/hooks/use-form.ts'
import { useSaveWebdav } from '../api.ts'
import { DeleteWebdavDialog } from './delete-webdav-dialog.tsx'

type Saved = { username: string; password: string; url: string } | null

const empty = { username: '', password: '', url: '' }

/** 'Error connecting to webdav server.' and why: sign-in refused, nothing at the URL, not WebDAV, not reachable… */
function withWebdavReason(err: unknown): string {
  const kind = err instanceof ApiError ? err.errorKind : null
  const reason = kind && kind in WEBDAV_PROBLEMS ? WEBDAV_PROBLEMS[kind as WebdavProblem] : null
  return reason ? `${errorText(err)} ${reason}` : errorText(err)
}

/** docs/product.md#account-page, WebDAV tab: Username, Password, URL (required); Save and Delete. */
export function WebdavForm({ saved }: { saved: Saved }) {
  const save = useSaveWebdav()
  const [deleteOpen, setDeleteOpen] = useState(false)
  const form = useForm({
    initialValues: saved ?? empty,
    schema: webdavAccount,
    required: ['username', 'password', 'url'],
  })

  // editing starts from the saved values; follow them when they change (saved elsewhere, deleted)
  const { reset } = form
  useEffect(() => {
    reset(saved ?? empty)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [saved])

  return (
    <Form onSubmit={form.handleSubmit((data) => save.mutate(data), save.reset)}>
      <TextField label="Username" autoComplete="off" required {...form.text('username')} />
      <TextField label="Password" type="password" autoComplete="new-password" required {...form.text('password')} />
      <TextField label="URL" type="url" placeholder="https://dav.example.com/remote.php/dav/files/me/" required {...form.text('url')} />
      <FormResult success={save.isSuccess && 'WebDAV Updated'} error={save.error && withWebdavReason(save.error)} />
      <FormActions submit="Save" submitProps={{ loading: save.isPending }}>
        <Button
          variant="outline"
          colorPalette="red"
          color="red.text"
          borderColor="red.a7"
          // the red colours above would otherwise keep it looking usable when there is nothing to delete
          _disabled={{ color: 'fg.subtle', borderColor: 'border.subtle', opacity: 0.6, cursor: 'not-allowed', _hover: { bg: 'transparent' } }}
          disabled={!saved}
          onClick={() => {
            save.reset()
            setDeleteOpen(true)
          }}
        >
          Delete
        </Button>
      </FormActions>
      <DeleteWebdavDialog open={deleteOpen} onOpenChange={setDeleteOpen} />
    </Form>
  )
}
