import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { KeyboardIcon, ListVideoIcon, PanelRightCloseIcon, PauseIcon, PlayIcon, SkipBackIcon, SkipForwardIcon } from 'lucide-react'
import { type RefObject, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { css } from 'styled-system/css'
import { useSnapshot } from 'valtio'
import { IconButton } from '~/components/ui/button.tsx'
import { notify } from '~/components/ui/toaster.tsx'
import { sessionQuery } from '~/lib/session.ts'
import { readListen } from '../listen.ts'
import { percentPlayed } from '../logic.ts'
import {
  currentVideo,
  ended,
  hydrateListen,
  next,
  patchListVideo,
  playerStore,
  previous,
  setPlaying,
  setProgress,
  setQueueOpen,
  setShortcutsOpen,
  togglePlaying,
} from '../store.ts'
import { useMediaSession } from '../use-media-session.ts'
import { usePlaybackTracking } from '../use-playback-tracking.ts'
import { useSegmentActions, useShownSegments } from '../use-segment-actions.ts'
import { usePlayerShortcuts } from '../use-shortcuts.ts'
import { ListenArt, ListenNoticeStrip, ListenSwitch, useListenAudio, usePrepareNext } from './listen-controls.tsx'
import { MediaPlayer, type MediaPlayerHandle } from './media-player.tsx'
import { ProgressSlider } from './progress-slider.tsx'
import { SegmentNoticeView } from './segment-notice.tsx'
import { QueuePanel } from './queue-panel.tsx'
import { ShortcutsDialog } from './shortcuts-dialog.tsx'

// class names computed once: the bar re-renders on every change of video or state
const root = css({ height: 'full', display: 'flex', flexDirection: 'column', justifyContent: 'center', gap: '1', px: { base: '3', md: '5' }, pb: '1' })
const bar = css({ display: 'flex', alignItems: 'center', gap: { base: '2', md: '3' }, minH: '0' })
const thumb = css({ width: '16', height: '9', flexShrink: '0', objectFit: 'cover', borderRadius: 'l1', bg: 'gray.a3', display: { base: 'none', sm: 'block' } })
const texts = css({ flex: '1', minW: '0', display: 'flex', flexDirection: 'column', lineHeight: 'tight' })
// 24 px tall lines: the two links are 24 px targets (WCAG 2.5.8)
const titleText = css({ display: 'block', truncate: true, fontWeight: 'medium', textStyle: 'sm', lineHeight: '24px', _hover: { textDecoration: 'underline' } })
const channelText = css({ display: 'block', truncate: true, textStyle: 'xs', color: 'fg.muted', lineHeight: '24px', _hover: { textDecoration: 'underline' } })
const muted = css({ textStyle: 'sm', color: 'fg.muted' })
const controls = css({ display: 'flex', alignItems: 'center', gap: '1', flexShrink: '0' })
// the mini player slot: the media player, with the artwork over it in listen mode
const slot = css({ position: 'relative', width: 'full', height: 'full' })
// the queue button shows on phones too: the panel it opens holds the playing video
const extras = css({ display: 'flex', alignItems: 'center', gap: '1', flexShrink: '0', flex: { md: '1' }, justifyContent: 'flex-end' })

/**
 * The autoplay player (docs/product.md#autoplay-player): the footer bar (progress slider, thumbnail,
 * title and channel links, previous/play-pause/next, queue toggle) and the
 * queue panel holding the mini player. Plays the list back to back.
 *
 * Split so that the progress reported every second re-renders only the
 * slider and the bookkeeping, not the bar or the queue list.
 */
export default function AutoplayPlayer() {
  const player = useRef<MediaPlayerHandle>(null)
  // listen mode as remembered for this account on this device, read before anything plays
  const userId = useQuery(sessionQuery).data?.id
  const { listenUser } = useSnapshot(playerStore)
  useLayoutEffect(() => {
    if (userId) hydrateListen(userId, readListen(globalThis.localStorage, userId))
  }, [userId])
  return (
    <>
      <div className={root}>
        <FooterProgress player={player} />
        <PlayerBar player={player} />
      </div>
      {(!userId || listenUser === userId) && <PlayerEngine player={player} />}
      <FooterSegments player={player} />
    </>
  )
}

function FooterProgress({ player }: { player: RefObject<MediaPlayerHandle | null> }) {
  const { progress, list, index } = useSnapshot(playerStore)
  const [seeking, setSeeking] = useState<number | null>(null)
  const { playedSeconds, duration } = progress
  const segments = useShownSegments(list[index]?.id)
  return (
    <ProgressSlider
      segments={segments}
      percent={seeking ?? percentPlayed(playedSeconds, duration)}
      playedSeconds={seeking !== null ? (seeking / 100) * duration : playedSeconds}
      duration={duration}
      disabled={!list[index] || !(duration > 0)}
      onSeeking={setSeeking}
      onSeek={(v) => {
        setSeeking(null)
        if (duration > 0) player.current?.seek((v / 100) * duration)
      }}
    />
  )
}

function PlayerBar({ player }: { player: RefObject<MediaPlayerHandle | null> }) {
  const snap = useSnapshot(playerStore)
  const video = currentVideo(snap)
  return (
    <div className={bar}>
      {video && <img className={thumb} src={video.thumbnail} alt="" width="64" height="36" />}
      <div className={texts}>
        {video ? (
          <>
            <Link to="/youtube/video/$id" params={{ id: video.id }} title={video.title} aria-label={`Video: ${video.title}`}>
              <span className={titleText}>{video.title}</span>
            </Link>
            <Link to="/youtube/channel/$id" params={{ id: video.channel.id }} aria-label={`Channel: ${video.channel.title}`}>
              <span className={channelText}>{video.channel.title}</span>
            </Link>
          </>
        ) : (
          <span className={muted}>{snap.list.length === 0 ? 'Nothing to play' : 'Loading…'}</span>
        )}
      </div>
      <div className={controls}>
        <IconButton aria-label="Previous video" variant="ghost" size="sm" onClick={() => previous()} disabled={!video} hideBelow="sm">
          <SkipBackIcon />
        </IconButton>
        <IconButton aria-label={snap.playing ? 'Pause' : 'Play'} size="md" onClick={() => togglePlaying()} disabled={!video}>
          {snap.playing ? <PauseIcon /> : <PlayIcon />}
        </IconButton>
        <IconButton aria-label="Next video" variant="ghost" size="sm" onClick={() => next()} disabled={!video}>
          <SkipForwardIcon />
        </IconButton>
      </div>
      <div className={extras}>
        <ListenSwitch player={player} />
        <IconButton aria-label="Keyboard shortcuts" variant="ghost" size="sm" onClick={() => setShortcutsOpen(true)} hideBelow="md">
          <KeyboardIcon />
        </IconButton>
        <IconButton
          aria-label={snap.queueOpen ? 'Close queue' : 'Open queue'}
          aria-expanded={snap.queueOpen}
          aria-controls="queue-panel"
          variant={snap.queueOpen ? 'subtle' : 'ghost'}
          size="sm"
          onClick={() => setQueueOpen(!snap.queueOpen)}
        >
          {snap.queueOpen ? <PanelRightCloseIcon /> : <ListVideoIcon />}
        </IconButton>
      </div>
    </div>
  )
}

const actions = {
  play: () => setPlaying(true),
  pause: () => setPlaying(false),
  togglePlay: () => togglePlaying(),
  next: () => next(),
  previous: () => previous(),
  showHelp: () => setShortcutsOpen(!playerStore.shortcutsOpen),
}

/** The media player (in the queue panel), its keyboard shortcuts, the shortcuts dialog. */
function PlayerEngine({ player }: { player: RefObject<MediaPlayerHandle | null> }) {
  const { list, index, session, startFrom, playing, queueOpen, shortcutsOpen, page, totalPages, listen } = useSnapshot(playerStore)
  const video = list[index]
  const tracking = useRef<{ ended(p: number, d: number): void }>(null)
  usePlayerShortcuts({ ...actions, seekBy: (s) => player.current?.seekBy(s) })
  // listen mode: the audio route once the video's audio is ready (docs/product.md#listen-mode)
  // a kept video's own file is played as it is (its audio, no fetch: docs/product.md "Keeping videos")
  const kept = video?.keptFile ?? null
  const audio = useListenAudio(video?.id, listen && !kept)
  usePrepareNext(listen, !!(kept ?? audio.src))
  const source = useMemo(() => (video ? { id: video.id, mediaUrl: listen ? (kept ?? audio.src) : video.mediaUrl } : null), [video, listen, kept, audio.src])

  return (
    <>
      <QueuePanel
        open={queueOpen}
        list={list}
        index={index}
        page={page}
        totalPages={totalPages}
        player={
          video && source ? (
            <div className={slot}>
              <MediaPlayer
                ref={player}
                label="Autoplay player"
                video={source}
                audio={listen}
                session={session}
                startFrom={startFrom}
                playing={playing}
                onPlayingChange={setPlaying}
                onProgress={(p, d) => setProgress(p, d)}
                onEnded={(p, d) => {
                  tracking.current?.ended(p, d)
                  ended()
                }}
                onError={(message) => {
                  // a video that cannot play is skipped, so the queue never stalls on it; the notice names it, says
                  // why, and offers it where it can play (hovering the notice holds it open)
                  notify.error(`Skipped: ${video.title}`, `${message}.`, {
                    label: 'Open on YouTube',
                    onClick: () => window.open(`https://www.youtube.com/watch?v=${encodeURIComponent(video.id)}`, '_blank', 'noopener'),
                  })
                  ended()
                }}
              />
              {listen && <ListenArt video={video} notice={audio.notice} />}
            </div>
          ) : null
        }
      />
      <ListenNoticeStrip notice={audio.notice} player={player} />
      <PlaybackBookkeeping player={player} tracking={tracking} />
      <ShortcutsDialog open={shortcutsOpen} onOpenChange={(o) => setShortcutsOpen(o)} />
    </>
  )
}

/** Watched mark, saved position and the Media Session: the parts that follow the progress. */
function PlaybackBookkeeping({
  player,
  tracking,
}: {
  player: RefObject<MediaPlayerHandle | null>
  tracking: RefObject<{ ended(p: number, d: number): void } | null>
}) {
  const snap = useSnapshot(playerStore)
  const video = currentVideo(snap)
  const { playedSeconds, duration } = snap.progress
  const t = usePlaybackTracking({
    video,
    session: snap.session,
    playedSeconds,
    duration,
    playing: snap.playing,
    onWatched: (id) => patchListVideo(id, { watched: new Date().toISOString() }),
  })
  tracking.current = t
  useMediaSession({
    video,
    playing: snap.playing,
    playedSeconds,
    duration,
    actions: { ...actions, seekTo: (s) => player.current?.seek(s), seekBy: (s) => player.current?.seekBy(s) },
  })
  return null
}

/** SponsorBlock for the playing video (docs/product.md#sponsorblock): skips and mutes, and the notice above the footer. */
function FooterSegments({ player }: { player: RefObject<MediaPlayerHandle | null> }) {
  const { list, index, session, playing } = useSnapshot(playerStore)
  const { notice, goBack, dismiss } = useSegmentActions(list[index]?.id, player, { playing, session })
  return <SegmentNoticeView placement="floating" notice={notice} onGoBack={goBack} onDismiss={dismiss} />
}
