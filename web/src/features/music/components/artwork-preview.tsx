import { useState } from 'react'
import { styled } from 'styled-system/jsx'
import { Spinner } from '~/components/ui/spinner.tsx'
import placeholder from '../assets/artwork-placeholder.svg'

export type ArtworkPreviewProps = {
  /** The resolved artwork (data URI or image URL), or null for the placeholder. */
  src: string | null
  status: 'none' | 'pending' | 'found' | 'failed'
}

const captions = {
  none: 'No artwork',
  pending: 'Looking up artwork…',
  found: 'Artwork preview',
  failed: 'No artwork found at this link',
}

/** The square artwork preview beside the form; the placeholder image when there is none (docs/product.md#artwork). */
export function ArtworkPreview({ src, status }: ArtworkPreviewProps) {
  // an image that does not load (gone, blocked) falls back to the placeholder
  const [broken, setBroken] = useState<string | null>(null)
  const shown = src && broken !== src ? src : null
  const caption = src && broken === src ? 'The image could not be loaded' : captions[status]
  return (
    <styled.figure display="flex" flexDirection="column" gap="2" alignItems="center" width="full" m="0">
      <styled.div
        position="relative"
        width="full"
        aspectRatio="square"
        borderRadius="l3"
        overflow="hidden"
        borderWidth="1px"
        borderColor="border.subtle"
        bg="bg.subtle"
        boxShadow="md"
      >
        <styled.img
          key={shown ?? 'placeholder'}
          src={shown ?? placeholder}
          alt={shown ? 'Artwork preview' : 'No artwork'}
          data-testid="artwork-preview"
          data-placeholder={shown ? undefined : ''}
          width="full"
          height="full"
          objectFit="cover"
          display="block"
          onError={() => shown && setBroken(shown)}
          draggable={false}
        />
        {status === 'pending' && (
          <styled.div position="absolute" inset="0" display="flex" alignItems="center" justifyContent="center" bg="black.a6" backdropFilter="blur(2px)">
            <Spinner size="lg" label="Looking up artwork" />
          </styled.div>
        )}
      </styled.div>
      <styled.figcaption textStyle="xs" color={status === 'failed' ? 'fg.error' : 'fg.subtle'} textAlign="center" aria-live="polite">
        {caption}
      </styled.figcaption>
    </styled.figure>
  )
}
