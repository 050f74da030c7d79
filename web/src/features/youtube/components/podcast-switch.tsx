import { Switch as ArkSwitch } from '@ark-ui/react/switch'
import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useId, useState } from 'react'
import { createStyleContext, styled } from 'styled-system/jsx'
import { input, switchRecipe } from 'styled-system/recipes'
import { PodcastEpisodes, summaryText } from '~/components/podcast-episodes.tsx'
import { errorText } from '~/lib/api.ts'
import { DEFAULT_KEEP_LAST, KEEP_LAST_MAX } from '#server/youtube/listen/schema.ts'
import { podcastsQuery } from '~/lib/podcasts-api.ts'
import { useSetPodcast } from '../podcast-api.ts'

const { withProvider, withContext } = createStyleContext(switchRecipe)
const SwitchRoot = withProvider(ArkSwitch.Root, 'root')
const SwitchControl = withContext(ArkSwitch.Control, 'control')
const SwitchThumb = withContext(ArkSwitch.Thumb, 'thumb')
const SwitchLabel = withContext(ArkSwitch.Label, 'label')

/** 1-100 as typed, else null. */
const parseKeep = (text: string) => (/^\d{1,3}$/.test(text.trim()) && Number(text) >= 1 && Number(text) <= KEEP_LAST_MAX ? Number(text) : null)
const KEEP_ERROR = `Enter a whole number from 1 to ${KEEP_LAST_MAX}.`

/**
 * A followed channel as a private podcast (docs/product.md#podcasts): the switch and "Keep the
 * last N videos" (1-100, default 10). On the channel page (`compact` false: with a sentence on
 * what it does and where the address is) and on each subscriptions card (`compact`).
 */
export function PodcastSwitch({ channelId, channelTitle, compact = false }: { channelId: string; channelTitle: string; compact?: boolean }) {
  const podcasts = useQuery(podcastsQuery)
  const save = useSetPodcast()
  const feed = podcasts.data?.feeds.find((f) => f.channelId === channelId)
  const enabled = !!feed
  const [keepText, setKeepText] = useState(String(feed?.keepLast ?? DEFAULT_KEEP_LAST))
  const [touched, setTouched] = useState(false)
  // the saved number shows once it arrives or changes (React's "adjust state while rendering")
  const [synced, setSynced] = useState(feed?.keepLast)
  if (feed && feed.keepLast !== synced) {
    setSynced(feed.keepLast)
    setKeepText(String(feed.keepLast))
  }
  const keep = parseKeep(keepText)
  const keepError = touched && keep === null ? KEEP_ERROR : null
  const id = useId()

  const change = (next: boolean) => {
    if (keep === null) {
      setTouched(true)
      return
    }
    save.mutate({ channelId, enabled: next, keepLast: keep })
  }
  const commitKeep = () => {
    setTouched(true)
    if (enabled && keep !== null && keep !== feed?.keepLast) save.mutate({ channelId, enabled: true, keepLast: keep })
  }

  return (
    <styled.div display="flex" flexDirection="column" gap="1.5" minW="0" data-podcast-switch={channelId}>
      <styled.div display="flex" alignItems="center" gap={compact ? '3' : '4'} flexWrap="wrap">
        <SwitchRoot
          size={compact ? 'sm' : 'md'}
          checked={enabled}
          disabled={podcasts.isPending || save.isPending}
          onCheckedChange={(d) => change(d.checked)}
          minH="6"
        >
          <SwitchControl>
            <SwitchThumb />
          </SwitchControl>
          <ArkSwitch.HiddenInput aria-describedby={`${id}-status`} />
          <SwitchLabel textStyle={compact ? 'sm' : 'md'}>
            Podcast
            {/* on a card among many, the channel is part of the name */}
            {compact && <styled.span srOnly> of {channelTitle}</styled.span>}
          </SwitchLabel>
        </SwitchRoot>
        <styled.label display="inline-flex" alignItems="center" gap="2" textStyle="sm" color="fg.muted" whiteSpace="nowrap" htmlFor={`${id}-keep`}>
          Keep the last
          {compact && <styled.span srOnly> videos of {channelTitle} as episodes</styled.span>}
          <styled.input
            id={`${id}-keep`}
            className={input({ size: compact ? 'xs' : 'sm' })}
            type="number"
            inputMode="numeric"
            min={1}
            max={KEEP_LAST_MAX}
            step={1}
            w="4.5rem"
            // the number in the label's size (the xs input's own is smaller)
            textStyle="sm"
            minH="6"
            value={keepText}
            aria-invalid={keepError ? true : undefined}
            aria-describedby={keepError ? `${id}-keep-error` : undefined}
            onChange={(e) => setKeepText(e.currentTarget.value)}
            onBlur={commitKeep}
            onKeyDown={(e) => e.key === 'Enter' && commitKeep()}
          />
          videos
        </styled.label>
      </styled.div>
      {keepError && (
        <styled.p id={`${id}-keep-error`} color="fg.error" textStyle="sm" role="alert">
          {keepError}
        </styled.p>
      )}
      {save.isError && (
        <styled.p color="fg.error" textStyle="sm" role="alert">
          The podcast could not be changed: {errorText(save.error)}
        </styled.p>
      )}
      {podcasts.isError && (
        <styled.p color="fg.error" textStyle="sm" role="alert">
          Whether this channel is a podcast could not be loaded: {errorText(podcasts.error)}
        </styled.p>
      )}
      <styled.p id={`${id}-status`} textStyle="sm" color="fg.muted" role="status">
        {enabled
          ? compact
            ? summaryText(feed)
            : `${summaryText(feed)} Episodes are the newest videos, with sponsor segments cut out. `
          : compact
            ? ''
            : 'Turn it on to listen to the newest videos in a podcast app, with the sponsor segments you skip cut out. '}
        {enabled && !compact && (
          <>
            Copy the feed address on the{' '}
            <Link to="/account" search={{ tab: 'podcasts' }} style={{ textDecoration: 'underline' }}>
              Account page, under Podcasts
            </Link>
            .
          </>
        )}
      </styled.p>
      {enabled && <PodcastEpisodes channelId={channelId} channelTitle={channelTitle} summary={feed} defaultOpen={!compact && feed.failed > 0} />}
    </styled.div>
  )
}
