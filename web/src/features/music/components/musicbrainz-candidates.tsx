import { SearchIcon } from 'lucide-react'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { Spinner } from '~/components/ui/spinner.tsx'
import placeholder from '../assets/artwork-placeholder.svg'
import type { MusicFormState } from '../use-music-form.ts'

/** "Find on MusicBrainz": up to 5 recordings with release, year, track and cover; "Use" applies one. */
export function MusicBrainzCandidates({ form }: { form: MusicFormState }) {
  const { brainz, values } = form
  return (
    <styled.div display="flex" flexDirection="column" gap="3">
      <styled.div display="flex" gap="2" alignItems="center">
        <Button variant="outline" size="sm" onClick={brainz.search} disabled={!values.title.trim()} loading={brainz.loading}>
          <SearchIcon />
          Find on MusicBrainz
        </Button>
        {brainz.open && !brainz.loading && (
          <Button variant="ghost" size="sm" onClick={brainz.close}>
            Close
          </Button>
        )}
      </styled.div>
      {brainz.open && brainz.loading && <Spinner size="sm" label="Searching MusicBrainz" />}
      {brainz.open && brainz.error && <Alert status="error">{brainz.error}</Alert>}
      {brainz.open && !brainz.loading && !brainz.error && (
        <styled.ul listStyle="none" m="0" p="0" display="flex" flexDirection="column" gap="2" aria-label="MusicBrainz candidates">
          {brainz.candidates.length === 0 && (
            <styled.li textStyle="sm" color="fg.muted">
              No recordings found.
            </styled.li>
          )}
          {brainz.candidates.map((c) => (
            <styled.li
              key={c.recordingId + (c.releaseId ?? '')}
              display="flex"
              alignItems="center"
              gap="3"
              borderWidth="1px"
              borderColor="border.subtle"
              borderRadius="l2"
              p="2"
              aria-label={`${c.artist} – ${c.title}`}
            >
              <styled.img src={c.coverUrl ?? placeholder} alt="" w="12" h="12" borderRadius="l1" objectFit="cover" flexShrink="0" bg="bg.subtle" />
              <styled.div display="flex" flexDirection="column" minW="0" flex="1" textStyle="sm">
                <styled.span fontWeight="semibold" overflow="hidden" textOverflow="ellipsis" whiteSpace="nowrap">
                  {c.title}
                </styled.span>
                <styled.span color="fg.muted" overflow="hidden" textOverflow="ellipsis" whiteSpace="nowrap">
                  {c.artist}
                  {c.album ? ` · ${c.album}` : ''}
                  {c.year ? ` · ${c.year}` : ''}
                  {c.trackNumber ? ` · track ${c.trackNumber}${c.trackCount ? `/${c.trackCount}` : ''}` : ''}
                </styled.span>
              </styled.div>
              <Button size="sm" onClick={() => brainz.use(c)} aria-label={`Use ${c.title} from ${c.album ?? 'MusicBrainz'}`}>
                Use
              </Button>
            </styled.li>
          ))}
        </styled.ul>
      )}
    </styled.div>
  )
}
