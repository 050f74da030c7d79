import { FileUpload } from '@ark-ui/react/file-upload'
import { FileAudioIcon, UploadIcon, XIcon } from 'lucide-react'
import { css, cx } from 'styled-system/css'
import { styled } from 'styled-system/jsx'
import { IconButton } from '~/components/ui/button.tsx'
import { Spinner } from '~/components/ui/spinner.tsx'
import { AUDIO_ACCEPT, FILE_TYPE_ERROR } from '../form.ts'

export type AudioDropzoneProps = {
  file: File | null
  onFileChange: (file: File | null) => void
  onReject: (message: string) => void
  error?: string
  /** Shown beside the chosen file while its tags are read. */
  readingTags?: boolean
}

const dropzone = css({
  display: 'flex',
  flexDirection: { base: 'column', sm: 'row' },
  alignItems: 'center',
  justifyContent: 'center',
  gap: { base: '2', sm: '4' },
  textAlign: { base: 'center', sm: 'start' },
  minH: '28',
  px: '5',
  py: '5',
  borderWidth: '1.5px',
  borderStyle: 'dashed',
  borderColor: 'border.default',
  borderRadius: 'l3',
  bg: 'bg.subtle',
  cursor: 'pointer',
  transition: 'border-color 0.15s ease, background 0.15s ease',
  _hover: { borderColor: 'colorPalette.default', bg: 'colorPalette.a2' },
  '&[data-dragging]': { borderColor: 'colorPalette.default', bg: 'colorPalette.a3' },
  '&[data-invalid]': { borderColor: 'border.error' },
  _focusVisible: { outline: '2px solid', outlineColor: 'colorPalette.default', outlineOffset: '2px' },
})

const formatSize = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`

/** The audio file chooser of the file mode: drop or pick one MP3 or WAV (docs/product.md#music-form: audio/mpeg and audio/wav). */
export function AudioDropzone({ file, onFileChange, onReject, error, readingTags }: AudioDropzoneProps) {
  return (
    <FileUpload.Root
      accept={AUDIO_ACCEPT}
      maxFiles={1}
      acceptedFiles={file ? [file] : []}
      invalid={!!error}
      // the dropzone's name holds its visible text (WCAG 2.5.3), not Ark's default "dropzone"
      translations={{ dropzone: 'Drop an audio file here or browse' }}
      onFileAccept={(d) => onFileChange(d.files[0] ?? null)}
      onFileReject={(d) => d.files.length > 0 && onReject(FILE_TYPE_ERROR)}
      className={css({ display: 'flex', flexDirection: 'column', gap: '1.5', width: 'full' })}
    >
      <FileUpload.Label className={css({ textStyle: 'sm', fontWeight: 'medium', color: 'fg.default' })}>
        Audio file
        <styled.span color="fg.error" ms="1" aria-hidden>
          *
        </styled.span>
      </FileUpload.Label>
      {file ? (
        <styled.div
          display="flex"
          alignItems="center"
          gap="3"
          px="4"
          py="3"
          borderWidth="1px"
          borderColor={error ? 'border.error' : 'border.default'}
          borderRadius="l3"
          bg="bg.subtle"
          data-testid="chosen-file"
        >
          <styled.div flexShrink="0" display="flex" alignItems="center" justifyContent="center" w="10" h="10" borderRadius="l2" bg="colorPalette.a3" color="colorPalette.text">
            <FileAudioIcon size={20} aria-hidden />
          </styled.div>
          <styled.div display="flex" flexDirection="column" minW="0" flex="1">
            <styled.span fontWeight="medium" textStyle="sm" overflow="hidden" textOverflow="ellipsis" whiteSpace="nowrap" title={file.name}>
              {file.name}
            </styled.span>
            <styled.span textStyle="xs" color="fg.muted" display="flex" alignItems="center" gap="2">
              {formatSize(file.size)}
              {readingTags && (
                <>
                  <Spinner size="xs" label="Reading tags" />
                  Reading tags…
                </>
              )}
            </styled.span>
          </styled.div>
          <FileUpload.Trigger asChild>
            <styled.button type="button" textStyle="sm" color="colorPalette.text" fontWeight="medium" cursor="pointer" _hover={{ textDecoration: 'underline' }}>
              Replace
            </styled.button>
          </FileUpload.Trigger>
          <IconButton aria-label="Remove file" variant="ghost" size="sm" onClick={() => onFileChange(null)}>
            <XIcon />
          </IconButton>
        </styled.div>
      ) : (
        <FileUpload.Dropzone className={cx(dropzone)}>
          <styled.div display="flex" alignItems="center" justifyContent="center" w="10" h="10" borderRadius="full" bg="colorPalette.a3" color="colorPalette.text" flexShrink="0">
            <UploadIcon size={18} aria-hidden />
          </styled.div>
          <styled.span fontWeight="medium" textStyle="sm">
            Drop an audio file here or <styled.span color="colorPalette.text">browse</styled.span>
          </styled.span>
        </FileUpload.Dropzone>
      )}
      {!file && (
        // outside the dropzone, whose accessible name is exactly its visible text
        <styled.span textStyle="xs" color="fg.muted">
          MP3 (audio/mpeg) or WAV (audio/wav)
        </styled.span>
      )}
      {error && (
        <styled.span textStyle="sm" color="fg.error" role="alert">
          {error}
        </styled.span>
      )}
      <FileUpload.HiddenInput aria-label="Audio file" data-testid="audio-file-input" />
    </FileUpload.Root>
  )
}
