import { XIcon } from 'lucide-react'
import { useState } from 'react'
import { styled } from 'styled-system/jsx'
import { IconButton } from '~/components/ui/button.tsx'
import { LyricsPanel } from './lyrics-panel.tsx'

export interface Playing {
  url: string
  title: string
  /** The job whose kept lyrics show under the player (a song with lyrics: `job.lyrics` not null). */
  lyricsOf?: string
}

/**
 * The small in-page player of finished tracks: the browser's own audio
 * controls (keyboard and screen-reader friendly) over the authenticated
 * download route, which answers Range requests so seeking streams. The song's lyrics under it,
 * where it has some (synced ones follow the audio).
 */
export function NowPlaying({ playing, onClose }: { playing: Playing; onClose: () => void }) {
  const [seconds, setSeconds] = useState(0)
  return (
    <styled.div
      role="region"
      aria-label="Player"
      display="flex"
      flexWrap="wrap"
      alignItems="center"
      gap="3"
      px={{ base: '4', sm: '5' }}
      py="3"
      borderBottomWidth="1px"
      borderColor="border.subtle"
      bg="bg.subtle"
    >
      <styled.span fontWeight="medium" textStyle="sm" minW="0" flex="1" overflow="hidden" textOverflow="ellipsis" whiteSpace="nowrap">
        Playing: {playing.title}
      </styled.span>
      {/* biome-ignore lint/a11y/useMediaCaption: the user's own music tracks; there is no caption file to offer */}
      <styled.audio
        key={playing.url}
        src={playing.url}
        controls
        autoPlay
        preload="metadata"
        aria-label={`Player: ${playing.title}`}
        width={{ base: 'full', sm: '80' }}
        height="10"
        onTimeUpdate={(e) => setSeconds(e.currentTarget.currentTime)}
        onSeeked={(e) => setSeconds(e.currentTarget.currentTime)}
        onLoadStart={() => setSeconds(0)}
      />
      <IconButton aria-label="Close player" variant="ghost" size="sm" onClick={onClose}>
        <XIcon />
      </IconButton>
      {playing.lyricsOf && <LyricsPanel key={playing.lyricsOf} jobId={playing.lyricsOf} title={playing.title} seconds={seconds} />}
    </styled.div>
  )
}
