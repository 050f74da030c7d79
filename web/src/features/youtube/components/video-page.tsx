import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { EyeIcon, HardDriveDownloadIcon, HeartIcon, KeyboardIcon, ListMinusIcon, ListPlusIcon, MonitorPlayIcon, SparklesIcon } from 'lucide-react'
import { useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button, IconButton } from '~/components/ui/button.tsx'
import { Heading } from '~/components/ui/heading.tsx'
import { PageSpinner } from '~/components/ui/spinner.tsx'
import { notify } from '~/components/ui/toaster.tsx'
import { Tooltip } from '~/components/ui/tooltip.tsx'
import { MediaPlayer, type MediaPlayerHandle } from '~/player/components/media-player.tsx'
import { SegmentNoticeView } from '~/player/components/segment-notice.tsx'
import { ShortcutsDialog } from '~/player/components/shortcuts-dialog.tsx'
import { useMediaSession } from '~/player/use-media-session.ts'
import { usePlaybackTracking } from '~/player/use-playback-tracking.ts'
import { useSegmentActions } from '~/player/use-segment-actions.ts'
import { usePlayerShortcuts } from '~/player/use-shortcuts.ts'
import { type MarkChange, type VideoDetail, useToggleMark, videoQuery } from '../api.ts'
import { KEPT_STATE_WORDS, keptFileUrl, useKeepVideo, useRemoveKept } from '../keep-api.ts'
import { localDate, SaveAsTrackLink, VideoCard } from './video-card.tsx'
import { CardCell, CardGrid } from './video-grid.tsx'

/** docs/product.md#constants: the description collapses to 80 px. */
export const DESCRIPTION_HEIGHT = 80

/** /youtube/video/$id (docs/product.md#video-page): plays the video at once; its details, marks and related videos. */
export function VideoPage({ id }: { id: string }) {
  const video = useQuery(videoQuery(id))
  if (video.isPending) return <PageSpinner label="Loading video" />
  if (video.isError) {
    return (
      <styled.div display="flex" flexDirection="column" gap="6">
        <Heading>Video</Heading>
        <Alert status="error">Video could not be loaded</Alert>
      </styled.div>
    )
  }
  return <VideoView video={video.data} />
}

function VideoView({ video }: { video: VideoDetail }) {
  const player = useRef<MediaPlayerHandle>(null)
  const [playing, setPlaying] = useState(true)
  const [progress, setProgress] = useState({ playedSeconds: 0, duration: 0 })
  const [help, setHelp] = useState(false)
  const toggle = useToggleMark()
  const onToggle = useCallback((change: MarkChange) => toggle.mutate(change), [toggle.mutate])

  const tracking = usePlaybackTracking({ video, playedSeconds: progress.playedSeconds, duration: progress.duration, playing })
  const actions = {
    play: () => setPlaying(true),
    pause: () => setPlaying(false),
    togglePlay: () => setPlaying((p) => !p),
    seekTo: (s: number) => player.current?.seek(s),
    seekBy: (s: number) => player.current?.seekBy(s),
    showHelp: () => setHelp((h) => !h),
  }
  usePlayerShortcuts(actions)
  useMediaSession({ video, playing, ...progress, actions })
  // played again after its end: a new play-through, segments skipped again
  const [playThrough, setPlayThrough] = useState(0)
  const segments = useSegmentActions(video.id, player, { playing, session: playThrough })

  const liked = !!video.liked
  const queued = !!video.queued
  // DeArrow's title (docs/product.md#dearrow), the uploader's one press away
  const [original, setOriginal] = useState(false)
  const shownTitle = (!original && video.dearrow?.title) || video.title
  // a kept file plays in the browser's own player (byte ranges), with "Play from YouTube" as the way back
  const [fromYoutube, setFromYoutube] = useState(false)
  const keptReady = video.kept?.state === 'ready'
  const source = useMemo(() => (keptReady && !fromYoutube ? { ...video, mediaUrl: keptFileUrl(video.id) } : video), [video, keptReady, fromYoutube])
  const keep = useKeepVideo()
  const unkeep = useRemoveKept()
  return (
    <styled.div display="flex" flexDirection="column" gap="6">
      <styled.div
        width="full"
        aspectRatio="16 / 9"
        borderRadius="l3"
        overflow="hidden"
        bg="black"
        // fits the window with the title and controls in view, at most 64rem wide
        style={{ maxWidth: 'min(64rem, calc((100dvh - 260px) * 16 / 9))', minWidth: 'min(100%, 20rem)' }}
      >
        <MediaPlayer
          key={source.mediaUrl ?? 'youtube'}
          ref={player}
          controls
          video={source}
          playing={playing}
          onPlayingChange={setPlaying}
          onProgress={(playedSeconds, duration) => setProgress({ playedSeconds, duration })}
          onEnded={(p, d) => {
            tracking.ended(p, d)
            setPlaying(false)
            setPlayThrough((n) => n + 1)
          }}
          onError={(message) => notify.error(message, video.title)}
        />
      </styled.div>
      <SegmentNoticeView notice={segments.notice} onGoBack={segments.goBack} onDismiss={segments.dismiss} />

      <styled.div display="flex" flexDirection="column" gap="4" maxW="5xl">
        <Heading size="xl">{shownTitle}</Heading>
        <styled.div display="flex" alignItems="center" justifyContent="space-between" gap="4" flexWrap="wrap">
          <styled.div display="flex" alignItems="center" gap="3" minW="0">
            <Link to="/youtube/channel/$id" params={{ id: video.channel.id }} aria-label={video.channel.title}>
              <styled.img src={video.channel.thumbnail} alt="" width="40" height="40" borderRadius="full" bg="gray.a3" style={{ width: 40, height: 40 }} />
            </Link>
            <styled.div display="flex" flexDirection="column" minW="0">
              <Link to="/youtube/channel/$id" params={{ id: video.channel.id }}>
                <styled.span fontWeight="semibold" _hover={{ textDecoration: 'underline' }}>
                  {video.channel.title}
                </styled.span>
              </Link>
              <styled.time dateTime={video.publishedAt} textStyle="sm" color="fg.muted">
                {localDate(video.publishedAt)}
              </styled.time>
            </styled.div>
          </styled.div>
          <styled.div display="flex" alignItems="center" gap="2" flexWrap="wrap" role="group" aria-label="Video actions">
            {video.dearrow?.title && (
              <Tooltip content={original ? 'Title as uploaded' : 'Title from DeArrow'}>
                <Button variant={original ? 'subtle' : 'outline'} size="sm" aria-pressed={original} onClick={() => setOriginal(!original)}>
                  <SparklesIcon />
                  Original title
                </Button>
              </Tooltip>
            )}
            <Tooltip content={liked ? `Liked on ${localDate(video.liked!)}` : 'Like'}>
              <Button variant={liked ? 'subtle' : 'outline'} size="sm" aria-pressed={liked} onClick={() => onToggle({ id: video.id, kind: 'like', on: !liked })}>
                <HeartIcon fill={liked ? 'currentColor' : 'none'} />
                {liked ? 'Liked' : 'Like'}
              </Button>
            </Tooltip>
            <Tooltip content={queued ? 'Unqueue' : 'Queue'}>
              <Button variant={queued ? 'subtle' : 'outline'} size="sm" aria-pressed={queued} onClick={() => onToggle({ id: video.id, kind: 'queue', on: !queued })}>
                {queued ? <ListMinusIcon /> : <ListPlusIcon />}
                {queued ? 'Unqueue' : 'Queue'}
              </Button>
            </Tooltip>
            {video.watched ? (
              <Tooltip content={`Watched on ${localDate(video.watched)}`}>
                <Button variant="subtle" size="sm" aria-label={`Watched on ${localDate(video.watched)}`} aria-disabled="true" data-watched="">
                  <EyeIcon />
                  Watched
                </Button>
              </Tooltip>
            ) : (
              <Tooltip content="Mark as watched">
                <Button variant="outline" size="sm" onClick={() => onToggle({ id: video.id, kind: 'watch', on: true })}>
                  <EyeIcon />
                  Mark watched
                </Button>
              </Tooltip>
            )}
            {video.kept?.state === 'failed' ? (
              <Tooltip content={video.kept.error ?? 'Could not be kept'}>
                <Button variant="outline" size="sm" data-kept="failed" disabled={keep.isPending} onClick={() => keep.mutate({ id: video.id })}>
                  <HardDriveDownloadIcon />
                  Keep again
                </Button>
              </Tooltip>
            ) : video.kept ? (
              <Tooltip content="Remove the kept copy">
                <Button variant="subtle" size="sm" aria-pressed data-kept={video.kept.state} disabled={unkeep.isPending} onClick={() => unkeep.mutate({ id: video.id })}>
                  <HardDriveDownloadIcon />
                  {video.kept.state === 'ready' ? 'Kept' : KEPT_STATE_WORDS[video.kept.state]}
                </Button>
              </Tooltip>
            ) : (
              <Tooltip content="Keep a copy on the server">
                <Button variant="outline" size="sm" aria-pressed={false} disabled={keep.isPending} onClick={() => keep.mutate({ id: video.id })}>
                  <HardDriveDownloadIcon />
                  Keep
                </Button>
              </Tooltip>
            )}
            {keptReady && (
              <Button variant="outline" size="sm" onClick={() => setFromYoutube((y) => !y)}>
                <MonitorPlayIcon />
                {fromYoutube ? 'Play kept copy' : 'Play from YouTube'}
              </Button>
            )}
            <SaveAsTrackLink video={video} label="Save as track" />
            <IconButton aria-label="Keyboard shortcuts" variant="ghost" size="sm" onClick={() => setHelp(true)} hideBelow="md">
              <KeyboardIcon />
            </IconButton>
          </styled.div>
        </styled.div>
        <Description text={video.description} />
      </styled.div>

      {video.relatedVideos.length > 0 && (
        <styled.section display="flex" flexDirection="column" gap="4" aria-labelledby="related-heading">
          <Heading as="h2" size="lg" id="related-heading">
            Related Videos
          </Heading>
          <CardGrid label="Related Videos" row>
            {video.relatedVideos.map((v) => (
              <CardCell key={v.id}>
                <VideoCard video={v} onToggle={onToggle} />
              </CardCell>
            ))}
          </CardGrid>
        </styled.section>
      )}
      <ShortcutsDialog open={help} onOpenChange={setHelp} withQueue={false} />
    </styled.div>
  )
}

/** docs/product.md#video-page: the description folds to 80 px; 'Show more' / 'Hide' appear only when it is longer. */
function Description({ text }: { text: string }) {
  const box = useRef<HTMLDivElement>(null)
  const [open, setOpen] = useState(false)
  const [long, setLong] = useState(false)
  useLayoutEffect(() => {
    const el = box.current
    if (!el) return
    const measure = () => setLong(el.scrollHeight > DESCRIPTION_HEIGHT + 1)
    measure()
    const ro = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(measure)
    ro?.observe(el)
    return () => ro?.disconnect()
  }, [text])
  if (!text.trim()) return null
  return (
    <styled.div display="flex" flexDirection="column" alignItems="flex-start" gap="1" bg="gray.a2" borderRadius="l2" p="4">
      <styled.div
        ref={box}
        id="video-description"
        whiteSpace="pre-wrap"
        overflowWrap="anywhere"
        textStyle="sm"
        overflow="hidden"
        width="full"
        style={{ maxHeight: open ? undefined : DESCRIPTION_HEIGHT }}
      >
        {text}
      </styled.div>
      {long && (
        <Button variant="link" size="sm" aria-expanded={open} aria-controls="video-description" onClick={() => setOpen((o) => !o)}>
          {open ? 'Hide' : 'Show more'}
        </Button>
      )}
    </styled.div>
  )
}
