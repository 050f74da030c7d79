import { ListMusicIcon, ListPlusIcon } from 'lucide-react'
import { styled } from 'styled-system/jsx'
import { Button } from '~/components/ui/button.tsx'
import { Checkbox } from '~/components/ui/checkbox.tsx'
import { Spinner } from '~/components/ui/spinner.tsx'
import { clock } from '../suggest.ts'
import type { MusicFormState } from '../use-music-form.ts'

/**
 * What the link offers beyond one track: its chapters ("Split by chapters"
 * and the tracks it would make), a playlist ("Add all N"), and for YouTube
 * links "Remove non-music parts" (SponsorBlock, on by default).
 */
export function LinkOptions({ form }: { form: MusicFormState }) {
  const { link, values } = form
  if (values.source !== 'url') return null
  return (
    <styled.div display="flex" flexDirection="column" gap="3" data-testid="link-options">
      {link.loading && (
        <styled.span display="inline-flex" alignItems="center" gap="2" textStyle="sm" color="fg.muted">
          <Spinner size="xs" label="Reading the link…" />
          Reading the link…
        </styled.span>
      )}
      {link.busy && (
        <styled.span textStyle="sm" color="fg.muted" role="status" data-testid="link-busy">
          {link.busy} The job itself can be added now: it waits for its turn.
        </styled.span>
      )}
      {link.error && (
        <styled.p role="alert" textStyle="sm" color="fg.error" m="0" data-testid="link-error">
          {link.error}
        </styled.p>
      )}
      {link.youtube && (
        <Checkbox checked={values.removeSegments} onCheckedChange={(e) => form.setFlag('removeSegments', e.checked === true)}>
          Remove non-music parts
        </Checkbox>
      )}
      {link.chapters.length > 0 && (
        <styled.div display="flex" flexDirection="column" gap="2" borderWidth="1px" borderColor="border.subtle" borderRadius="l2" p="3">
          <Checkbox checked={values.splitChapters} onCheckedChange={(e) => form.setFlag('splitChapters', e.checked === true)}>
            Split by chapters
          </Checkbox>
          <styled.ol listStyle="none" m="0" p="0" display="flex" flexDirection="column" gap="1" aria-label="Tracks" textStyle="sm">
            {link.chapters.map((c, i) => (
              <styled.li key={`${c.start}-${c.title}`} display="flex" gap="2" color={values.splitChapters ? 'fg.default' : 'fg.muted'}>
                <styled.span fontVariantNumeric="tabular-nums" color="fg.subtle" minW="6">
                  {i + 1}.
                </styled.span>
                <styled.span flex="1" minW="0" overflow="hidden" textOverflow="ellipsis" whiteSpace="nowrap">
                  {c.title}
                </styled.span>
                <styled.span fontVariantNumeric="tabular-nums" color="fg.subtle">
                  {clock(c.start)}–{clock(c.end)}
                </styled.span>
              </styled.li>
            ))}
          </styled.ol>
        </styled.div>
      )}
      {link.playlist && (
        <styled.div display="flex" flexWrap="wrap" alignItems="center" gap="3" borderWidth="1px" borderColor="border.subtle" borderRadius="l2" p="3">
          <ListMusicIcon size={18} aria-hidden />
          <styled.span flex="1" minW="0" textStyle="sm">
            Playlist <strong>{link.playlist.title ?? 'without a title'}</strong>: {link.playlist.count} {link.playlist.count === 1 ? 'entry' : 'entries'}
          </styled.span>
          <Button variant="outline" size="sm" onClick={form.addPlaylist} loading={form.submitting}>
            <ListPlusIcon />
            Add all {link.playlist.count}
          </Button>
        </styled.div>
      )}
    </styled.div>
  )
}
