import { FileAudioIcon, LinkIcon } from 'lucide-react'
import { styled } from 'styled-system/jsx'
import { FormActions } from '~/components/ui/form-actions.tsx'
import { CardBody, CardDescription, CardHeader, CardRoot, CardTitle } from '~/components/ui/card.tsx'
import { TextField } from '~/components/ui/field.tsx'
import { SegmentedControl } from '~/components/ui/segmented-control.tsx'
import { Spinner } from '~/components/ui/spinner.tsx'
import type { MusicPrefill } from '../search.ts'
import { useMusicForm } from '../use-music-form.ts'
import { ArtworkPreview } from './artwork-preview.tsx'
import { AudioDropzone } from './audio-dropzone.tsx'
import { LinkOptions } from './link-options.tsx'
import { MusicBrainzCandidates } from './musicbrainz-candidates.tsx'

const artworkHelp = {
  none: 'An image link (.jpg, .png), or a page with a cover image',
  pending: 'Looking up artwork…',
  found: 'Artwork found',
  failed: 'No artwork found at this link',
}

function Pending({ children }: { children: string }) {
  return (
    <styled.span display="inline-flex" alignItems="center" gap="2">
      <Spinner size="xs" label={children} />
      {children}
    </styled.span>
  )
}

/** docs/product.md#music-downloader and docs/product.md#music-form: the 'Music Downloader / Converter' form. */
export function MusicForm({ prefill, onCreated }: { prefill: MusicPrefill; onCreated?: () => void }) {
  const form = useMusicForm({ prefill, onCreated })
  const { values } = form
  const artworkIsData = values.artworkUrl.startsWith('data:')

  return (
    <CardRoot>
      <CardHeader px={{ base: '4', sm: '6' }}>
        <CardTitle>Music Downloader / Converter</CardTitle>
        <CardDescription>Turn a video link or an audio file into a tagged MP3.</CardDescription>
      </CardHeader>
      <CardBody px={{ base: '4', sm: '6' }}>
        <styled.form
          noValidate
          aria-label="Music Downloader / Converter"
          onSubmit={form.submit}
          display="grid"
          gridTemplateColumns={{ base: '1fr', md: 'minmax(0, 1fr) 220px', xl: 'minmax(0, 1fr) 260px' }}
          gridTemplateAreas={{ base: '"preview" "fields"', md: '"fields preview"' }}
          columnGap={{ base: '6', lg: '8' }}
          rowGap="6"
        >
          <styled.div gridArea="preview" width={{ base: '44', sm: '52', md: 'full' }} mx={{ base: 'auto', md: '0' }}>
            <ArtworkPreview src={form.resolvedArtwork} status={form.artworkStatus} />
          </styled.div>

          <styled.div gridArea="fields" display="flex" flexDirection="column" gap="5" minW="0">
            <styled.div display="flex" flexDirection="column" gap="1.5">
              <styled.span textStyle="sm" fontWeight="medium" id="music-source-label">
                Source
              </styled.span>
              <SegmentedControl
                aria-label="Source"
                value={values.source}
                onValueChange={(v) => form.setSource(v as 'url' | 'file')}
                options={[
                  { value: 'url', label: 'Video URL', icon: <LinkIcon aria-hidden /> },
                  { value: 'file', label: 'Audio File', icon: <FileAudioIcon aria-hidden /> },
                ]}
              />
            </styled.div>

            {values.source === 'url' ? (
              <TextField
                label="Video URL"
                name="video_url"
                type="url"
                inputMode="url"
                autoComplete="off"
                placeholder="https://www.youtube.com/watch?v=…"
                required
                value={values.videoUrl}
                onChange={(e) => form.setVideoUrl(e.target.value)}
                onBlur={() => values.videoUrl && form.touch('videoUrl')}
                error={form.errorOf('videoUrl')}
              />
            ) : (
              <AudioDropzone
                file={values.file}
                onFileChange={form.chooseFile}
                onReject={form.rejectFile}
                error={form.errorOf('file')}
                readingTags={form.tagsLoading}
              />
            )}

            <LinkOptions form={form} />

            <TextField
              label="Artwork URL"
              name="artwork_url"
              inputMode="url"
              autoComplete="off"
              placeholder="https://… (.jpg, .png or a page)"
              value={values.artworkUrl}
              onChange={(e) => form.setArtworkUrl(e.target.value)}
              helperText={
                form.artworkStatus === 'pending' ? (
                  <Pending>Looking up artwork…</Pending>
                ) : artworkIsData && form.artworkStatus === 'found' ? (
                  'Artwork from the file’s tags'
                ) : (
                  artworkHelp[form.artworkStatus]
                )
              }
            />

            <styled.div display="grid" gridTemplateColumns={{ base: '1fr', sm: '1fr 1fr' }} gap="5">
              <TextField label="Title" autoComplete="off" required {...form.tagField('title')} />
              <TextField label="Artist" autoComplete="off" required {...form.tagField('artist')} />
              <TextField
                label="Album"
                autoComplete="off"
                required
                {...form.tagField('album')}
                helperText={!form.errorOf('album') && form.albumFromTitle ? 'Filled in from the title' : undefined}
              />
              <TextField
                label="Grouping"
                autoComplete="off"
                {...form.tagField('grouping')}
                helperText={form.groupingLoading ? <Pending>Looking up the channel…</Pending> : 'Optional, e.g. the channel'}
              />
              <TextField label="Year" autoComplete="off" inputMode="numeric" placeholder="Optional" {...form.tagField('year')} />
              <TextField label="Track number" autoComplete="off" inputMode="numeric" placeholder="Optional" {...form.tagField('trackNumber')} />
            </styled.div>

            <MusicBrainzCandidates form={form} />

            <FormActions
              align="end"
              justifyContent={{ base: 'stretch', sm: 'flex-end' }}
              pt="1"
              submit="Submit"
              submitProps={{ size: 'lg', width: { base: 'full', sm: 'auto' }, minW: { sm: '40' }, loading: form.submitting, disabled: form.tagsLoading }}
            />
          </styled.div>
        </styled.form>
      </CardBody>
    </CardRoot>
  )
}
