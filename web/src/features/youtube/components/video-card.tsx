import { EyeIcon, HeartIcon, ListMinusIcon, ListPlusIcon, Music2Icon, PlayIcon, SparklesIcon } from 'lucide-react'
import { memo, useState } from 'react'
import { css, cx } from 'styled-system/css'
import { formatTime } from '~/player/logic.ts'
import type { MarkChange, Video } from '../api.ts'
import { KEPT_STATE_WORDS } from '../keep-api.ts'
import { trackSearch } from '../save-as-track.ts'
import { CardLink, channelPath, useSearchString, videoPath } from './card-link.tsx'
import { categoryIcon } from './category-icon.tsx'

/** Local date of an ISO timestamp (docs/product.md#video-card: publish date in local format). */
export function localDate(iso: string): string {
  return new Date(iso).toLocaleDateString()
}

// the overlay and the controls show on hover or focus on desktop, always on touch screens
const card = css({
  position: 'relative',
  display: 'flex',
  flexDirection: 'column',
  gap: '3',
  minW: '0',
  '--reveal': '0',
  '&:hover, &:focus-within': { '--reveal': '1' },
  '@media (hover: none)': { '--reveal': '1' },
})

const thumbBox = css({
  position: 'relative',
  aspectRatio: '16 / 9',
  borderRadius: 'l3',
  overflow: 'hidden',
  bg: 'gray.a3',
})

const overlay = css({
  position: 'absolute',
  inset: '0',
  display: 'flex',
  alignItems: 'center',
  justifyContent: 'center',
  bg: 'rgba(0, 0, 0, 0.55)',
  color: 'white',
  opacity: 'var(--reveal)',
  transition: 'opacity 0.15s ease',
  '[data-queued] &, [data-watched] &': { opacity: '1' },
  _focusVisible: { outline: '2px solid', outlineColor: 'colorPalette.default', outlineOffset: '-2px' },
  '& svg': { width: '10', height: '10', opacity: '0.9' },
})

const corner = css({
  position: 'absolute',
  zIndex: '1',
  display: 'inline-flex',
  alignItems: 'center',
  justifyContent: 'center',
  width: '8',
  height: '8',
  borderRadius: 'full',
  bg: 'rgba(0, 0, 0, 0.6)',
  color: 'white',
  cursor: 'pointer',
  opacity: 'var(--reveal)',
  transition: 'opacity 0.15s ease, background 0.15s ease',
  _hover: { bg: 'rgba(0, 0, 0, 0.85)' },
  _focusVisible: { outline: '2px solid', outlineColor: 'colorPalette.default', opacity: '1' },
  '&[aria-pressed=true]': { opacity: '1' },
  '& svg': { width: '4', height: '4' },
})

const badge = css({
  position: 'absolute',
  zIndex: '1',
  display: 'inline-flex',
  alignItems: 'center',
  gap: '1',
  px: '2',
  height: '6',
  borderRadius: 'l2',
  bg: 'rgba(0, 0, 0, 0.7)',
  color: 'white',
  textStyle: 'xs',
  fontWeight: 'medium',
  '& svg': { width: '3.5', height: '3.5' },
})

// bottom right: the kind (Live, Upcoming, Short), the duration, the category icon
const bottomRow = css({ position: 'absolute', zIndex: '1', bottom: '2', right: '2', display: 'flex', gap: '1' })
const inRow = css({ position: 'static' })
const liveBadge = cx(badge, inRow, css({ bg: '#b3261e', textTransform: 'uppercase', letterSpacing: 'wide' }))
const kindBadge = cx(badge, inRow)
const iconBadge = cx(badge, inRow, css({ px: '1.5' }))

const KIND_LABELS = { live: 'Live', upcoming: 'Upcoming', short: 'Short' } as const

const thumbImg = css({ position: 'absolute', inset: '0', width: 'full', height: 'full', objectFit: 'cover' })
const meta = css({ display: 'flex', gap: '3', alignItems: 'flex-start', minW: '0' })
const avatar = css({ width: '9', height: '9', borderRadius: 'full', bg: 'gray.a3', flexShrink: '0' })
const metaText = css({ display: 'flex', flexDirection: 'column', gap: '0.5', minW: '0', flex: '1' })
const titleText = css({ display: 'block', fontWeight: 'semibold', textStyle: 'sm', lineClamp: '2', _hover: { textDecoration: 'underline' } })
const channelText = css({ display: 'block', textStyle: 'sm', color: 'fg.muted', truncate: true, _hover: { color: 'fg.default' } })
const dateText = css({ textStyle: 'xs', color: 'fg.subtle' })
// the title and channel links are 24 px targets (WCAG 2.5.8), not 20 px lines
const textLink = css({ display: 'block', minH: '6' })
const topLeft = cx(corner, css({ top: '2', left: '2' }))
const topRight = cx(corner, css({ top: '2', right: '2' }))
const bottomLeft = cx(badge, css({ bottom: '2', left: '2' }))
const likedHeart = css({ color: '#ff6b81' })

export type VideoCardProps = {
  video: Video
  onToggle(change: MarkChange): void
}

/**
 * docs/product.md#video-card: thumbnail under a dark overlay linking to the video,
 * queue (top left) and like (top right) controls, a watched badge, the
 * category icon (bottom right), then title, channel and publish date.
 * Plain elements with class names computed once: 48 of these render at a time.
 */
export const VideoCard = memo(function VideoCard({ video, onToggle }: VideoCardProps) {
  const Icon = categoryIcon(video.category.id)
  const [original, setOriginal] = useState(false)
  const { title, thumbnail } = shownBranding(video, original)
  const liked = !!video.liked
  const queued = !!video.queued
  const watchedText = video.watched ? `Watched on ${localDate(video.watched)}` : ''
  return (
    <article
      className={card}
      aria-label={title}
      data-video-id={video.id}
      data-queued={queued ? '' : undefined}
      data-watched={video.watched ? '' : undefined}
      data-liked={liked ? '' : undefined}
    >
      <div className={thumbBox}>
        <img className={thumbImg} src={thumbnail} alt="" loading="lazy" decoding="async" width="480" height="270" />
        <CardLink href={videoPath(video.id)} className={overlay} aria-label={`Play ${title}`} tabIndex={-1}>
          <PlayIcon aria-hidden />
        </CardLink>
        <button
          type="button"
          data-tooltip={queued ? 'Unqueue' : 'Queue'}
          className={topLeft}
          aria-label={queued ? 'Unqueue' : 'Queue'}
          aria-pressed={queued}
          onClick={() => onToggle({ id: video.id, kind: 'queue', on: !queued })}
        >
          {queued ? <ListMinusIcon /> : <ListPlusIcon />}
        </button>
        <button
          type="button"
          data-tooltip={liked ? `Liked on ${localDate(video.liked!)}` : 'Like'}
          className={topRight}
          aria-label={liked ? 'Unlike' : 'Like'}
          aria-pressed={liked}
          onClick={() => onToggle({ id: video.id, kind: 'like', on: !liked })}
        >
          <HeartIcon fill={liked ? 'currentColor' : 'none'} className={liked ? likedHeart : undefined} />
        </button>
        {video.watched && (
          <span className={bottomLeft} role="img" aria-label={watchedText} data-tooltip={watchedText}>
            <EyeIcon aria-hidden />
            Watched
          </span>
        )}
        <span className={bottomRow}>
          {video.kept && (
            <span className={kindBadge} role="img" aria-label={KEPT_STATE_WORDS[video.kept.state]} data-tooltip={KEPT_STATE_WORDS[video.kept.state]} data-kept={video.kept.state}>
              {video.kept.state === 'ready' ? 'Kept' : video.kept.state === 'failed' ? 'Not kept' : 'Keeping'}
            </span>
          )}
          {video.kind !== 'video' && <span className={video.kind === 'live' ? liveBadge : kindBadge}>{KIND_LABELS[video.kind]}</span>}
          {video.duration !== null && video.kind !== 'live' && (
            <time className={kindBadge} dateTime={`PT${video.duration}S`}>
              {formatTime(video.duration)}
            </time>
          )}
          {Icon && (
            <span className={iconBadge} role="img" aria-label={video.category.name} data-tooltip={video.category.name}>
              <Icon aria-hidden />
            </span>
          )}
        </span>
      </div>
      <div className={meta}>
        <CardLink href={channelPath(video.channel.id)} aria-label={video.channel.title} tabIndex={-1}>
          <img className={avatar} src={video.channel.thumbnail} alt="" loading="lazy" width="36" height="36" />
        </CardLink>
        <div className={metaText}>
          <CardLink href={videoPath(video.id)} className={textLink}>
            <span className={titleText} title={title}>
              {title}
            </span>
          </CardLink>
          <CardLink href={channelPath(video.channel.id)} className={textLink}>
            <span className={channelText}>{video.channel.title}</span>
          </CardLink>
          <time className={dateText} dateTime={video.publishedAt}>
            {localDate(video.publishedAt)}
          </time>
        </div>
        {video.dearrow && <DearrowToggle original={original} onChange={setOriginal} />}
        <SaveAsTrackLink video={video} />
      </div>
    </article>
  )
})

/** The title and thumbnail shown: DeArrow's where it has one (docs/product.md#dearrow), unless the original was asked for. */
export function shownBranding(video: Video, original: boolean): { title: string; thumbnail: string } {
  const d = original ? null : video.dearrow
  return { title: d?.title || video.title, thumbnail: d?.thumbnail || video.thumbnail }
}

/** DeArrow's title and thumbnail or the uploader's: one press away, on the card and the video page. */
export function DearrowToggle({ original, onChange, label }: { original: boolean; onChange(original: boolean): void; label?: boolean }) {
  // one name, its state in aria-pressed: pressed shows the uploader's own title and thumbnail
  const name = 'Original title'
  return (
    <button
      type="button"
      className={saveLink}
      aria-label={label ? undefined : name}
      aria-pressed={original}
      data-tooltip={label ? undefined : original ? 'Title as uploaded' : 'Title from DeArrow'}
      onClick={() => onChange(!original)}
    >
      <SparklesIcon aria-hidden />
      {label && 'Original title'}
    </button>
  )
}

const saveLink = css({
  display: 'inline-flex',
  alignItems: 'center',
  gap: '2',
  flexShrink: '0',
  p: '1.5',
  borderRadius: 'l2',
  color: 'fg.muted',
  textStyle: 'sm',
  _hover: { bg: 'gray.a3', color: 'fg.default' },
  _focusVisible: { outline: '2px solid', outlineColor: 'colorPalette.default' },
  '& svg': { width: '4', height: '4' },
})

/**
 * Opens the Music Downloader prefilled with this video (URL, title, artist,
 * artwork). Without a visible label it carries a tooltip for the card grid's
 * tooltip layer.
 */
export function SaveAsTrackLink({ video, label }: { video: Video; label?: string }) {
  const searchString = useSearchString()
  return (
    <CardLink
      href={`/music/downloader${searchString(trackSearch(video))}`}
      aria-label={`Save as track: ${video.title}`}
      data-tooltip={label ? undefined : 'Save as track'}
      className={saveLink}
    >
      <Music2Icon aria-hidden />
      {label}
    </CardLink>
  )
}
