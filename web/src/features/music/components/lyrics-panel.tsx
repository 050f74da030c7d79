import { useQuery } from '@tanstack/react-query'
import { useEffect, useMemo, useRef } from 'react'
import { styled } from 'styled-system/jsx'
import { formatTime } from '~/player/logic.ts'
import { jobLyricsQuery } from '../api.ts'
import { currentLine, parseLyrics } from '../lyrics.ts'

/**
 * The playing song's kept lyrics under the in-page player (docs/product.md#music-downloader):
 * synced lines with their times, the one being sung marked (`aria-current`, bold) and kept in
 * view inside the list; plain text as it is. Nothing is announced as lines change (a screen
 * reader reads the list when asked); the list scrolls by itself and takes keyboard focus.
 */
export function LyricsPanel({ jobId, title, seconds }: { jobId: string; title: string; seconds: number }) {
  const query = useQuery(jobLyricsQuery(jobId))
  const lyrics = useMemo(() => (query.data?.text ? parseLyrics(query.data.text) : null), [query.data])
  const current = lyrics ? currentLine(lyrics, seconds) : -1
  const list = useRef<HTMLOListElement>(null)

  // the sung line in the middle of the list's own box (never scrolls the page)
  useEffect(() => {
    const box = list.current
    const line = current >= 0 ? box?.children[current] : null
    if (!box || !(line instanceof HTMLElement)) return
    box.scrollTo({ top: line.offsetTop - box.offsetTop - box.clientHeight / 2 + line.clientHeight / 2, behavior: 'smooth' })
  }, [current])

  if (!lyrics || lyrics.lines.length === 0) return null
  return (
    <styled.section aria-label={`Lyrics of ${title}`} w="full" data-testid="lyrics">
      <styled.ol
        ref={list}
        // a scrolling box must be reachable by keyboard (axe scrollable-region-focusable)
        tabIndex={0}
        aria-label={lyrics.synced ? 'Lyrics, with times' : 'Lyrics'}
        listStyle="none"
        m="0"
        p="2"
        maxH={{ base: '40', sm: '56' }}
        overflowY="auto"
        position="relative"
        borderWidth="1px"
        borderColor="border.subtle"
        borderRadius="l2"
        bg="bg.default"
        textStyle="sm"
        _focusVisible={{ outline: '2px solid', outlineColor: 'colorPalette.default', outlineOffset: '2px' }}
      >
        {lyrics.lines.map((line, i) => {
          const now = i === current
          return (
            <styled.li
              // biome-ignore lint/suspicious/noArrayIndexKey: lines are fixed for the song and may repeat
              key={i}
              aria-current={now ? 'true' : undefined}
              display="flex"
              gap="3"
              px="2"
              py="0.5"
              minH={line.value ? undefined : '3'}
              borderRadius="l1"
              fontWeight={now ? 'semibold' : 'normal'}
              color={lyrics.synced && !now ? 'fg.muted' : 'fg.default'}
              bg={now ? 'colorPalette.a3' : undefined}
            >
              {line.start !== undefined && (
                <styled.time flexShrink="0" fontFamily="mono" color="fg.muted" dateTime={`PT${(line.start / 1000).toFixed(2)}S`}>
                  {formatTime(line.start / 1000)}
                </styled.time>
              )}
              <span>{line.value}</span>
            </styled.li>
          )
        })}
      </styled.ol>
    </styled.section>
  )
}
