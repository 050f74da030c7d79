import { useQuery } from '@tanstack/react-query'
import { styled } from 'styled-system/jsx'
import { Heading } from '~/components/ui/heading.tsx'

interface Extension {
  name: string
  versions: number[]
}

/** The OpenSubsonic extensions the server advertises (getOpenSubsonicExtensions answers without signing in). */
const extensionsQuery = {
  queryKey: ['subsonic', 'extensions'] as const,
  queryFn: async (): Promise<Extension[]> => {
    const res = await fetch('/rest/getOpenSubsonicExtensions?f=json&v=1.16.1&c=tunefeed-web')
    if (!res.ok) throw new Error(`HTTP ${res.status}`)
    const body = (await res.json()) as { 'subsonic-response'?: { openSubsonicExtensions?: Extension[] } }
    return body['subsonic-response']?.openSubsonicExtensions ?? []
  },
  staleTime: Number.POSITIVE_INFINITY,
}

/**
 * Account → Music Players, "What players get": the parts of the Subsonic API a player can use
 * here (docs/subsonic.md), and the OpenSubsonic extensions as the server itself lists them.
 */
export function PlayersSupported() {
  const extensions = useQuery(extensionsQuery)
  return (
    <styled.section aria-labelledby="players-supported" display="flex" flexDirection="column" gap="3">
      <Heading as="h3" id="players-supported" textStyle="md" fontWeight="semibold">
        What players get
      </Heading>
      <styled.ul textStyle="sm" color="fg.muted" listStyleType="disc" pl="5" display="flex" flexDirection="column" gap="1">
        <li>
          <strong>Music:</strong> your finished tracks as artists, albums and songs, with covers, stars, playlists, the play queue and
          offline sync.
        </li>
        <li>
          <strong>Podcasts:</strong> your podcast feeds (Podcasts tab) as podcast channels with their episodes; a YouTube channel added in the
          player is followed and its podcast turned on.
        </li>
        <li>
          <strong>Bookmarks:</strong> for songs and episodes. An episode's bookmark is the position the web player saved: start it here, go on
          in the player where it stopped, and back.
        </li>
        <li>
          <strong>Lyrics:</strong> synced (with times) or plain, from the file, looked up when the track finished, or edited with its tags.
        </li>
        <li>
          <strong>Transcoding:</strong> a lower bit rate, MP3 or Opus, and starting part-way through, made on the fly; when the server is busy,
          the stored file as it is.
        </li>
      </styled.ul>
      <styled.p textStyle="sm" color="fg.muted" data-testid="subsonic-extensions">
        OpenSubsonic extensions:{' '}
        {extensions.isPending
          ? 'loading…'
          : extensions.isError
            ? 'could not be read.'
            : extensions.data.map((e, i) => (
                <span key={e.name}>
                  {i > 0 && ', '}
                  <styled.code fontFamily="mono" color="fg.default">
                    {e.name}
                  </styled.code>{' '}
                  (version {e.versions.join(', ')})
                </span>
              ))}
      </styled.p>
    </styled.section>
  )
}
