import { CircleXIcon, CloudCheckIcon, CloudOffIcon, DownloadIcon, FileAudioIcon, LinkIcon, PencilIcon, PlayIcon, RotateCcwIcon, Trash2Icon } from 'lucide-react'
import { useState } from 'react'
import { styled } from 'styled-system/jsx'
import { spinner } from 'styled-system/recipes'
import { Button, IconButton } from '~/components/ui/button.tsx'
import { notify } from '~/components/ui/toaster.tsx'
import { Tooltip } from '~/components/ui/tooltip.tsx'
import { errorText } from '~/lib/api.ts'
import { type MusicJob, useDeleteJob, useRetryJob } from '../api.ts'
import { downloadName } from '../form.ts'
import placeholder from '../assets/artwork-placeholder.svg'
import { EditTagsDialog } from './edit-tags-dialog.tsx'
import type { Playing } from './now-playing.tsx'

const sourceOf = (job: MusicJob) => {
  if (job.originalFilename) return { icon: <FileAudioIcon size={12} aria-hidden />, text: job.originalFilename }
  if (job.videoUrl) {
    const url = URL.parse(job.videoUrl)
    return { icon: <LinkIcon size={12} aria-hidden />, text: url ? url.host + (url.pathname === '/' ? '' : url.pathname) : job.videoUrl }
  }
  return null
}

function Thumbnail({ src }: { src: string | null }) {
  const [broken, setBroken] = useState(false)
  return (
    <styled.img
      src={src && !broken ? src : placeholder}
      alt=""
      loading="lazy"
      onError={() => setBroken(true)}
      w={{ base: '12', sm: '14' }}
      h={{ base: '12', sm: '14' }}
      flexShrink="0"
      borderRadius="l2"
      objectFit="cover"
      borderWidth="1px"
      borderColor="border.subtle"
      bg="bg.subtle"
    />
  )
}

const FAILED_FALLBACK = 'The job failed. Retry it, or delete it and try again.'

/** One job (docs/product.md#music-jobs): Loading with progress, Download (or Play, Edit tags and the tracks), or red Failed; Delete always. */
export function JobRow({ job, onPlay }: { job: MusicJob; onPlay: (playing: Playing) => void }) {
  const remove = useDeleteJob()
  const retry = useRetryJob()
  const [editing, setEditing] = useState(false)
  const split = job.tracks.length > 0
  const running = !job.completed && !job.failed
  const progress = Math.max(0, Math.min(100, Math.round(job.progress ?? 0)))
  const source = sourceOf(job)
  const filename = downloadName(job.downloadFilename ?? job.downloadUrl ?? '')

  return (
    <styled.li
      position="relative"
      display="flex"
      flexWrap={split || job.notice ? 'wrap' : { base: 'wrap', sm: 'nowrap' }}
      alignItems="center"
      gap={{ base: '3', sm: '4' }}
      px={{ base: '4', sm: '5' }}
      py="3.5"
      overflow="hidden"
      data-testid="music-job"
      data-job-id={job.id}
      data-state={job.failed ? 'failed' : job.completed ? 'completed' : 'running'}
      aria-label={job.title}
      _hover={{ bg: 'bg.subtle' }}
      transition="background 0.15s ease"
    >
      <Thumbnail src={job.artworkUrl} />
      <styled.div display="flex" flexDirection="column" gap="0.5" minW="0" flex="1">
        <styled.span fontWeight="semibold" overflow="hidden" textOverflow="ellipsis" whiteSpace="nowrap" title={job.title}>
          {job.title}
        </styled.span>
        <styled.span textStyle="sm" color="fg.muted" overflow="hidden" textOverflow="ellipsis" whiteSpace="nowrap">
          {job.artist} · {job.album}
        </styled.span>
        <styled.span display="flex" alignItems="center" gap="2" textStyle="xs" color="fg.subtle" minW="0">
          {job.grouping && (
            <styled.span px="1.5" py="0.5" borderRadius="l1" bg="colorPalette.a3" color="colorPalette.text" fontWeight="medium" flexShrink="0" maxW="40" overflow="hidden" textOverflow="ellipsis" whiteSpace="nowrap">
              {job.grouping}
            </styled.span>
          )}
          {source && (
            <styled.span display="inline-flex" alignItems="center" gap="1" minW="0" overflow="hidden" title={job.originalFilename ?? job.videoUrl ?? ''}>
              {source.icon}
              <styled.span overflow="hidden" textOverflow="ellipsis" whiteSpace="nowrap">
                {source.text}
              </styled.span>
            </styled.span>
          )}
          {(job.webdav === 'uploaded' || job.webdav === 'failed') && <WebdavBadge {...webdavBadges[job.webdav]} />}
        </styled.span>
        {running && job.waiting && (
          <styled.span textStyle="xs" color="fg.muted" data-testid="job-waiting" data-waiting-reason={job.waiting.reason}>
            {job.waiting.message}
            {job.waiting.until && ` Expected to start around ${new Date(job.waiting.until).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}.`}
          </styled.span>
        )}
        {job.failed && (
          <styled.span id={`job-error-${job.id}`} textStyle="xs" color="fg.error" data-testid="job-error" data-error-kind={job.errorKind ?? undefined}>
            {job.error ?? FAILED_FALLBACK}
          </styled.span>
        )}
      </styled.div>

      <styled.div display="flex" alignItems="center" gap="2" flexShrink="0" width={{ base: 'full', sm: 'auto' }} ps={{ base: '60px', sm: '0' }}>
        {running ? (
          <Button
            variant="outline"
            size="sm"
            flex={{ base: '1', sm: 'initial' }}
            minW="36"
            aria-disabled="true"
            aria-busy="true"
            fontVariantNumeric="tabular-nums"
            _disabled={{ color: 'fg.default', bg: 'transparent', borderColor: 'colorPalette.a7', cursor: 'progress', _hover: { color: 'fg.default', bg: 'transparent' } }}
          >
            <styled.span className={spinner({ size: 'xs' })} borderColor="currentColor" borderBottomColor="transparent" borderInlineStartColor="transparent" aria-hidden />
            {job.waiting ? 'Waiting' : `Loading ${progress}%`}
          </Button>
        ) : job.failed ? (
          <>
            <Tooltip content={job.error ?? FAILED_FALLBACK}>
              <Button size="sm" colorPalette="red" flex={{ base: '1', sm: 'initial' }} minW="36" cursor="default" aria-describedby={`job-error-${job.id}`}>
                <CircleXIcon />
                Failed
              </Button>
            </Tooltip>
            <Tooltip content="Run this job again">
              <IconButton
                aria-label={`Retry ${job.title}`}
                variant="outline"
                size="sm"
                loading={retry.isPending}
                onClick={() => retry.mutate(job.id, { onError: (err) => notify.error('Job could not be retried', errorText(err)) })}
              >
                <RotateCcwIcon />
              </IconButton>
            </Tooltip>
          </>
        ) : (
          <>
            {!split && job.downloadUrl && (
              <Tooltip content="Play">
                <IconButton aria-label={`Play ${job.title}`} variant="outline" size="sm" onClick={() => onPlay({ url: job.downloadUrl!, title: job.title, lyricsOf: job.lyrics ? job.id : undefined })}>
                  <PlayIcon />
                </IconButton>
              </Tooltip>
            )}
            <Tooltip content="Edit tags">
              <IconButton aria-label={`Edit tags of ${job.title}`} variant="outline" size="sm" onClick={() => setEditing(true)}>
                <PencilIcon />
              </IconButton>
            </Tooltip>
            <Button asChild size="sm" flex={{ base: '1', sm: 'initial' }} minW="36" type={undefined}>
              <a href={job.downloadUrl ?? undefined} download={filename || true} title={filename}>
                <DownloadIcon />
                {split ? 'Download all' : 'Download'}
              </a>
            </Button>
            {editing && <EditTagsDialog job={job} open={editing} onOpenChange={setEditing} />}
          </>
        )}
        <Tooltip content="Delete">
          <IconButton
            aria-label="Delete"
            variant="ghost"
            size="sm"
            color="fg.muted"
            _hover={{ color: 'fg.error', bg: 'red.a3' }}
            loading={remove.isPending}
            onClick={() => remove.mutate(job.id, { onError: (err) => notify.error('Job could not be deleted', errorText(err)) })}
          >
            <Trash2Icon />
          </IconButton>
        </Tooltip>
      </styled.div>

      {split && !running && !job.failed && <TrackList job={job} onPlay={onPlay} />}
      {job.notice && !running && (
        <styled.span width="full" textStyle="xs" color="fg.muted" ps={{ base: '60px', sm: '72px' }}>
          {job.notice}
        </styled.span>
      )}

      {running && (
        <styled.div
          position="absolute"
          left="0"
          bottom="0"
          height="2px"
          bg="colorPalette.default"
          transition="width 0.3s ease"
          style={{ width: `${progress}%` }}
          role="progressbar"
          aria-label={`${job.title} progress`}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={progress}
        />
      )}
    </styled.li>
  )
}

const webdavBadges = {
  uploaded: { label: 'Uploaded to WebDAV', tooltip: 'Uploaded to WebDAV', color: 'green.text', icon: <CloudCheckIcon size={14} /> },
  failed: { label: 'WebDAV upload failed', tooltip: 'WebDAV upload failed; the MP3 is still downloadable', color: 'fg.error', icon: <CloudOffIcon size={14} /> },
}

/** The job's WebDAV upload result: an icon with a tooltip, reachable by keyboard. */
function WebdavBadge({ label, tooltip, color, icon }: (typeof webdavBadges)[keyof typeof webdavBadges]) {
  return (
    <Tooltip content={tooltip}>
      <styled.span display="inline-flex" color={color} tabIndex={0} role="img" aria-label={label} flexShrink="0">
        {icon}
      </styled.span>
    </Tooltip>
  )
}

/** The tracks of a job split by chapters: each playable and downloadable on its own. */
function TrackList({ job, onPlay }: { job: MusicJob; onPlay: (playing: Playing) => void }) {
  return (
    <styled.ol listStyle="none" m="0" p="0" width="full" ps={{ base: '0', sm: '72px' }} display="flex" flexDirection="column" gap="1" aria-label={`Tracks of ${job.title}`}>
      {job.tracks.map((track) => (
        <styled.li key={track.trackNumber} display="flex" alignItems="center" gap="2" textStyle="sm">
          <styled.span fontVariantNumeric="tabular-nums" color="fg.subtle" minW="6">
            {track.trackNumber}.
          </styled.span>
          <styled.span flex="1" minW="0" overflow="hidden" textOverflow="ellipsis" whiteSpace="nowrap">
            {track.title}
          </styled.span>
          <IconButton aria-label={`Play ${track.title}`} variant="ghost" size="xs" onClick={() => onPlay({ url: track.downloadUrl, title: track.title })}>
            <PlayIcon />
          </IconButton>
          <IconButton asChild aria-label={`Download ${track.title}`} variant="ghost" size="xs">
            <a href={track.downloadUrl} download={track.downloadFilename}>
              <DownloadIcon />
            </a>
          </IconButton>
        </styled.li>
      ))}
    </styled.ol>
  )
}
