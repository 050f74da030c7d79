import { Link } from '@tanstack/react-router'
import { XIcon } from 'lucide-react'
import { type ReactNode, memo, useEffect, useRef } from 'react'
import { createPortal } from 'react-dom'
import { css, cx } from 'styled-system/css'
import { FOOTER_HEIGHT, HEADER_HEIGHT } from '~/components/layout/sizes.ts'
import { IconButton } from '~/components/ui/button.tsx'
import { Heading } from '~/components/ui/heading.tsx'
import { type PlayerVideo, choose, setQueueOpen } from '../store.ts'

export type QueuePanelProps = {
  open: boolean
  list: readonly PlayerVideo[]
  index: number
  page: number
  totalPages: number
  /** The media player: it lives here for good (an iframe reloads when moved), shown in the mini player slot. */
  player: ReactNode
}

const panel = css({
  position: 'fixed',
  right: '0',
  width: { base: '100%', md: '80%' },
  zIndex: 'overlay',
  bg: 'bg.default',
  borderLeftWidth: '1px',
  boxShadow: 'lg',
  display: 'flex',
  flexDirection: { base: 'column', lg: 'row' },
  gap: '6',
  p: '6',
  overflowX: 'hidden',
  transition: 'transform 0.25s ease',
  // docs/product.md#autoplay-player: it stays mounted while closed, holding the playing video; on a phone
  // it opens full width so the video can be seen (docs/decisions/111)
  transform: 'translateX(100%)',
  overflowY: { base: 'auto', lg: 'hidden' },
  '&[data-open]': { transform: 'translateX(0)' },
})
const nowPlaying = css({ display: 'flex', flexDirection: 'column', gap: '3', flex: { lg: '3' }, minW: '0' })
const row = css({ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: '2' })
const mini = css({ aspectRatio: '16 / 9', width: 'full', borderRadius: 'l2', overflow: 'hidden', bg: 'black' })
const currentInfo = css({ display: 'flex', flexDirection: 'column', gap: '1', minW: '0' })
const currentTitle = css({ fontWeight: 'semibold', textStyle: 'md', lineClamp: '2', _hover: { textDecoration: 'underline' } })
const currentChannel = css({ textStyle: 'sm', color: 'fg.muted', _hover: { textDecoration: 'underline' } })
const queueSection = css({ display: 'flex', flexDirection: 'column', gap: '3', flex: { base: '1', lg: '2' }, minH: '0', minW: '0' })
const pageNote = css({ textStyle: 'xs', color: 'fg.muted' })
const listBox = css({ display: 'flex', flexDirection: 'column', gap: '1', overflowY: 'auto', minH: '0', pe: '1' })
const item = css({
  display: 'flex',
  alignItems: 'center',
  gap: '3',
  width: 'full',
  p: '2',
  borderRadius: 'l2',
  textAlign: 'start',
  cursor: 'pointer',
  _hover: { bg: 'gray.a3' },
  _focusVisible: { outline: '2px solid', outlineColor: 'colorPalette.default' },
  '&[aria-current=true]': { bg: 'colorPalette.a3' },
})
const itemNo = css({ textStyle: 'xs', color: 'fg.muted', width: '6', textAlign: 'end', flexShrink: '0' })
const itemThumb = css({ width: '96px', height: '54px', flexShrink: '0', objectFit: 'cover', borderRadius: 'l1', bg: 'gray.a3' })
const itemTexts = css({ display: 'flex', flexDirection: 'column', minW: '0' })
const itemTitle = css({ textStyle: 'sm', fontWeight: 'medium', lineClamp: '2' })
const itemChannel = css({ textStyle: 'xs', color: 'fg.muted', truncate: true })
const closeSmall = css({ hideFrom: 'lg' })
const closeLarge = css({ hideBelow: 'lg' })

const close = () => setQueueOpen(false)

/**
 * The large queue panel (docs/product.md#autoplay-player, 80% wide) with the mini player and the
 * 'Queue' list. It stays mounted while autoplay is on, slid out of view when
 * closed, because it holds the playing video; on a phone it opens full width.
 */
export function QueuePanel({ open, list, index, page, totalPages, player }: QueuePanelProps) {
  const current = list[index]

  useEffect(() => {
    if (!open) return
    // focus goes back where it was (the queue button) when the panel closes
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && close()
    window.addEventListener('keydown', onKey)
    return () => {
      window.removeEventListener('keydown', onKey)
      const focused = document.activeElement
      const lost = !focused || focused === document.body || !!document.getElementById('queue-panel')?.contains(focused)
      if (lost && opener?.isConnected) opener.focus()
    }
  }, [open])

  return createPortal(
    <aside
      id="queue-panel"
      aria-label="Queue panel"
      aria-hidden={!open}
      inert={!open}
      data-open={open ? '' : undefined}
      className={panel}
      style={{ top: HEADER_HEIGHT, bottom: FOOTER_HEIGHT }}
    >
      <div className={nowPlaying}>
        <div className={row}>
          <Heading as="h2" size="lg">
            Now playing
          </Heading>
          <IconButton aria-label="Close queue" variant="ghost" size="sm" onClick={close} className={closeSmall}>
            <XIcon />
          </IconButton>
        </div>
        <div className={mini} data-testid="mini-player">
          {player}
        </div>
        {current && (
          <div className={currentInfo}>
            <Link to="/youtube/video/$id" params={{ id: current.id }}>
              <span className={currentTitle}>{current.title}</span>
            </Link>
            <Link to="/youtube/channel/$id" params={{ id: current.channel.id }}>
              <span className={currentChannel}>{current.channel.title}</span>
            </Link>
          </div>
        )}
      </div>

      <section aria-labelledby="queue-heading" className={queueSection}>
        <div className={cx(row, css({ alignItems: 'baseline' }))}>
          <Heading as="h2" size="lg" id="queue-heading">
            Queue
          </Heading>
          <div className={css({ display: 'flex', alignItems: 'center', gap: '2' })}>
            <span className={pageNote}>
              Page {page} of {Math.max(1, totalPages)}
            </span>
            <IconButton aria-label="Close queue" variant="ghost" size="sm" onClick={close} className={closeLarge}>
              <XIcon />
            </IconButton>
          </div>
        </div>
        <QueueList list={list} index={index} open={open} />
      </section>
    </aside>,
    document.body,
  )
}

/** The list re-renders only when the list or the current index changes. */
const QueueList = memo(function QueueList({ list, index, open }: { list: readonly PlayerVideo[]; index: number; open: boolean }) {
  const ref = useRef<HTMLOListElement>(null)
  useEffect(() => {
    if (open) ref.current?.querySelector('[aria-current=true]')?.scrollIntoView({ block: 'nearest' })
  }, [open, index])
  return (
    <ol ref={ref} className={listBox}>
      {list.map((v, i) => (
        <QueueItem key={`${v.id}-${i}`} video={v} position={i} current={i === index} />
      ))}
    </ol>
  )
})

const QueueItem = memo(function QueueItem({ video, position, current }: { video: PlayerVideo; position: number; current: boolean }) {
  return (
    <li>
      <button type="button" aria-current={current} onClick={() => choose(position)} className={item}>
        <span className={itemNo}>{position + 1}</span>
        <img className={itemThumb} src={video.thumbnail} alt="" loading="lazy" width="96" height="54" />
        <span className={itemTexts}>
          <span className={itemTitle}>{video.title}</span>
          <span className={itemChannel}>
            {video.channel.title}
            {video.watched ? ' · Watched' : ''}
          </span>
        </span>
      </button>
    </li>
  )
})
