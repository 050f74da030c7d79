import { useQuery } from '@tanstack/react-query'
import { HeadphonesIcon } from 'lucide-react'
import { type RefObject, useEffect, useRef } from 'react'
import { createPortal } from 'react-dom'
import { css } from 'styled-system/css'
import { useSnapshot } from 'valtio'
import { FOOTER_HEIGHT } from '~/components/layout/sizes.ts'
import { Button } from '~/components/ui/button.tsx'
import { Spinner } from '~/components/ui/spinner.tsx'
import { onChannelMessage, onChannelOpen, useChannelSocket } from '~/lib/channel-socket.ts'
import { queryClient } from '~/lib/query-client.ts'
import { audioQuery } from '../api.ts'
import { type AudioStatus, type ListenNotice, audioSrc, listenNotice, nextToPrepare, writeListen } from '../listen.ts'
import { applyAudioMessage, audioCatchUp } from '../listen-push.ts'
import { type PlayerVideo, currentVideo, next, playerStore, setListen } from '../store.ts'
import type { MediaPlayerHandle } from './media-player.tsx'

/**
 * Listen mode's parts of the autoplay player (docs/product.md#listen-mode): the switch, the
 * state of the current video's audio, the line that says it in words, the artwork shown where
 * the video would be, and the next video's audio prepared ahead.
 */

// readiness pushed by the channel socket (docs/decisions/310)
onChannelMessage(applyAudioMessage)
onChannelOpen(audioCatchUp)

/** The current video's audio in listen mode: its state, what to say about it, and the source once ready. */
export function useListenAudio(videoId: string | undefined, listen: boolean) {
  const query = useQuery({ ...audioQuery(videoId ?? ''), enabled: listen && !!videoId })
  // readiness comes over the channel socket (docs/decisions/310): open while listening
  useChannelSocket(listen && !!videoId)
  const status: AudioStatus | undefined = query.data
  const notice = listenNotice(listen && !!videoId, status, query.isError && !status ? query.error.message : null)
  const src = listen && videoId && status?.state === 'ready' ? audioSrc(videoId) : null
  return { status, notice, src }
}

/** Turns listen mode on or off, remembered for this account on this device; the current video goes on from where it is. */
export function chooseListen(on: boolean, player: RefObject<MediaPlayerHandle | null>) {
  const s = playerStore
  // where it stands, once something has played (else it starts as it would have)
  const at = s.progress.duration > 0 ? (player.current?.currentTime() ?? s.progress.playedSeconds) : null
  writeListen(globalThis.localStorage, s.listenUser, on)
  setListen(on, at)
}

const switchClass = css({ flexShrink: '0' })
// on: the accent's tint and an accent outline, so "on" reads at a glance (not only the grey of an open panel's button)
const switchOnClass = css({ flexShrink: '0', colorPalette: 'iris', boxShadow: 'inset 0 0 0 1px var(--colors-color-palette-a8)' })

/** The 'Listen' switch: a toggle button (aria-pressed), in the player bar at every width. */
export function ListenSwitch({ player }: { player: RefObject<MediaPlayerHandle | null> }) {
  const { listen } = useSnapshot(playerStore)
  return (
    <Button
      size="sm"
      variant={listen ? 'subtle' : 'ghost'}
      aria-pressed={listen}
      onClick={() => chooseListen(!listen, player)}
      className={listen ? switchOnClass : switchClass}
      title={listen ? 'Listening: the queue plays as audio. Press to watch again.' : 'Play the queue as audio (keeps playing with the screen locked)'}
    >
      <HeadphonesIcon />
      Listen
    </Button>
  )
}

const strip = css({
  position: 'fixed',
  right: '0',
  // beside the side navigation (NAVBAR_WIDTH, 200 px, from md up), never over its Account link
  left: { base: '0', md: '200px' },
  zIndex: 'calc(token(zIndex.overlay) + 1)',
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'center',
  gap: '2',
  px: { base: '3', md: '5' },
  bg: 'bg.default',
  '&[data-kind=preparing], &[data-kind=failed]': { py: '2', borderTopWidth: '1px', boxShadow: 'md' },
})
const statusText = css({ textStyle: 'sm', flex: '1', minW: '0', display: 'flex', alignItems: 'center', gap: '2', '[data-kind=failed] &': { color: 'fg.error' } })
const stripActions = css({ display: 'flex', gap: '2', flexShrink: '0' })

/**
 * What the player says about the audio, in words, above the footer: 'Preparing audio…' while it is
 * fetched; on failure the server's sentence with 'Skip to next' and 'Watch instead'. The live
 * region stays in the page (empty when there is nothing to say), so each change is announced.
 */
export function ListenNoticeStrip({ notice, player }: { notice: ListenNotice; player: RefObject<MediaPlayerHandle | null> }) {
  const root = useRef<HTMLDivElement>(null)
  // its height as --listen-strip-height on the page: the SponsorBlock notice floats above it
  useEffect(() => {
    const el = root.current
    if (!el) return
    const set = () => document.documentElement.style.setProperty('--listen-strip-height', `${el.offsetHeight}px`)
    set()
    const observer = new ResizeObserver(set)
    observer.observe(el)
    return () => {
      observer.disconnect()
      document.documentElement.style.removeProperty('--listen-strip-height')
    }
  }, [])
  return createPortal(
    <div ref={root} className={strip} data-kind={notice.kind} data-testid="listen-notice" style={{ bottom: FOOTER_HEIGHT }}>
      <div role="status" className={statusText}>
        {notice.kind === 'preparing' && <Spinner size="xs" aria-hidden="true" role="presentation" aria-label={undefined} />}
        {notice.kind !== 'none' && notice.text}
      </div>
      {notice.kind === 'failed' && (
        <div className={stripActions}>
          <Button size="sm" variant="outline" onClick={() => next()}>
            Skip to next
          </Button>
          <Button size="sm" variant="ghost" onClick={() => chooseListen(false, player)}>
            Watch instead
          </Button>
        </div>
      )}
    </div>,
    document.body,
  )
}

const art = css({ position: 'absolute', inset: '0', display: 'flex', alignItems: 'flex-end', bg: 'black', overflow: 'hidden' })
const artImg = css({ position: 'absolute', inset: '0', width: 'full', height: 'full', objectFit: 'cover', opacity: '0.55' })
const artCaption = css({
  position: 'relative',
  display: 'flex',
  alignItems: 'center',
  gap: '2',
  m: '3',
  px: '3',
  py: '1',
  borderRadius: 'l2',
  bg: 'rgba(0, 0, 0, 0.75)',
  color: 'white',
  textStyle: 'sm',
  fontWeight: 'medium',
})

/** Listen mode shows the thumbnail where the video would play, with what the player is doing (not a live region: the strip is). */
export function ListenArt({ video, notice }: { video: PlayerVideo; notice: ListenNotice }) {
  return (
    <div className={art} data-testid="listen-art">
      <img className={artImg} src={video.thumbnail} alt="" />
      <span className={artCaption}>
        <HeadphonesIcon size={16} aria-hidden="true" />
        {notice.kind === 'none' ? 'Listening' : notice.kind === 'preparing' ? notice.text : 'Audio not available'}
      </span>
    </div>
  )
}

/**
 * docs/decisions/194: while the current video's audio plays, the next queued video's audio is asked
 * for, so the step to it starts at once (fetched on the server; one video ahead, on this page).
 */
export function usePrepareNext(listen: boolean, ready: boolean) {
  const snap = useSnapshot(playerStore)
  const currentId = currentVideo(snap)?.id
  const nextId = nextToPrepare(snap.list, snap.index)
  const { playing } = snap
  useEffect(() => {
    if (!listen || !ready || !playing || !nextId || !currentId) return
    void queryClient.prefetchQuery(audioQuery(nextId)).catch(() => {})
  }, [listen, ready, playing, nextId, currentId])
}
