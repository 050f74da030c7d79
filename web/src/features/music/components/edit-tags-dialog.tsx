import { musicTagFields } from '#server/music/schema.ts'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { DialogPanel, DialogRoot } from '~/components/ui/dialog.tsx'
import { useQuery } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { TextareaField, TextField } from '~/components/ui/field.tsx'
import { Form } from '~/components/ui/form.tsx'
import { FormActions } from '~/components/ui/form-actions.tsx'
import { notify } from '~/components/ui/toaster.tsx'
import { useForm } from '~/hooks/use-form.ts'
import { errorText } from '~/lib/api.ts'
import { jobLyricsQuery, type MusicJob, useEditTags } from '../api.ts'

/** "Edit tags" of a finished job: the MP3 is retagged and renamed in place (PATCH /jobs/{id}). */
export function EditTagsDialog({ job, open, onOpenChange }: { job: MusicJob; open: boolean; onOpenChange: (open: boolean) => void }) {
  return (
    <DialogRoot open={open} onOpenChange={(e) => onOpenChange(e.open)}>
      <DialogPanel title="Edit tags" description="The finished file is retagged and renamed; WebDAV gets the new file.">
        <EditTagsForm job={job} onDone={() => onOpenChange(false)} />
      </DialogPanel>
    </DialogRoot>
  )
}

function EditTagsForm({ job, onDone }: { job: MusicJob; onDone: () => void }) {
  const edit = useEditTags()
  // the kept lyrics (decision 267): sent only when changed, so untouched ones keep their source
  const kept = useQuery(jobLyricsQuery(job.id))
  const [lyrics, setLyrics] = useState<string | null>(null)
  useEffect(() => {
    if (kept.data && lyrics === null) setLyrics(kept.data.text)
  }, [kept.data, lyrics])
  const form = useForm({
    initialValues: {
      title: job.title,
      artist: job.artist,
      album: job.album,
      grouping: job.grouping ?? '',
      year: job.year ? String(job.year) : '',
      track_number: job.trackNumber ? String(job.trackNumber) : '',
    },
    schema: musicTagFields,
    required: ['title', 'artist', 'album'],
  })
  const save = form.handleSubmit((data) =>
    edit.mutate(
      {
        id: job.id,
        tags: {
          title: data.title,
          artist: data.artist,
          album: data.album,
          grouping: data.grouping ?? null,
          year: data.year ?? null,
          trackNumber: data.track_number ?? null,
          ...(lyrics !== null && lyrics !== kept.data?.text ? { lyrics } : {}),
        },
      },
      {
        onSuccess: () => {
          notify.success('Tags saved')
          onDone()
        },
      },
    ),
  )
  return (
    <Form gap="4" onSubmit={save} aria-label="Edit tags">
      {edit.isError && <Alert status="error">{errorText(edit.error)}</Alert>}
      <TextField label="Title" autoComplete="off" required {...form.text('title')} />
      <TextField label="Artist" autoComplete="off" required {...form.text('artist')} />
      <TextField label="Album" autoComplete="off" required {...form.text('album')} />
      <TextField label="Grouping" autoComplete="off" {...form.text('grouping')} />
      <styled.div display="grid" gridTemplateColumns="1fr 1fr" gap="4">
        <TextField label="Year" inputMode="numeric" autoComplete="off" {...form.text('year')} />
        <TextField label="Track number" inputMode="numeric" autoComplete="off" {...form.text('track_number')} />
      </styled.div>
      <TextareaField
        label="Lyrics"
        helperText="Plain text, or LRC ([mm:ss.xx] before each line) for lyrics that follow the song. Empty removes them."
        value={lyrics ?? ''}
        disabled={lyrics === null && kept.isPending}
        onChange={(e) => setLyrics(e.currentTarget.value)}
      />
      <FormActions align="end" submit="Save" submitProps={{ loading: edit.isPending }} />
    </Form>
  )
}
