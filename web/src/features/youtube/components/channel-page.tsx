import { useQuery } from '@tanstack/react-query'
import { getRouteApi } from '@tanstack/react-router'
import { BellIcon, BellOffIcon } from 'lucide-react'
import { useState } from 'react'
import { styled } from 'styled-system/jsx'
import { Page } from '~/components/layout/page.tsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { PageSpinner, Spinner } from '~/components/ui/spinner.tsx'
import { notify } from '~/components/ui/toaster.tsx'
import { errorText, isStatus } from '~/lib/api.ts'
import { channelQuery, useSubscribe } from '../api.ts'
import { useChannelListen } from '../live.ts'
import { AutoplayButton } from './autoplay-button.tsx'
import { KeepSwitch } from './keep-switch.tsx'
import { PodcastSwitch } from './podcast-switch.tsx'
import { UnsubscribeDialog } from './unsubscribe-dialog.tsx'
import { VideoList } from './video-list.tsx'

const route = getRouteApi('/_app/youtube/channel/$id')

/**
 * /youtube/channel/$id (docs/product.md#channel-page): thumbnail and title, subscribe/unsubscribe,
 * Enable/Stop AutoPlay, 'Retrieving latest videos...' while the channel
 * refreshes (live), then its videos.
 */
export function ChannelPage({ id }: { id: string }) {
  const search = route.useSearch()
  const navigate = route.useNavigate()
  const channel = useQuery(channelQuery(id))
  const subscribe = useSubscribe()
  const [confirming, setConfirming] = useState(false)
  useChannelListen()

  if (channel.isPending) return <PageSpinner label="Loading channel" />
  if (channel.isError) {
    // the server looks a channel new to the app up by itself: a 404 is a channel that does not exist
    return (
      <Page title="Channel">
        <Alert status="error" title="Channel could not be loaded">
          {isStatus(channel.error, 404) ? 'There is no channel with this id. Check the link.' : errorText(channel.error)}
        </Alert>
      </Page>
    )
  }
  const c = channel.data
  return (
    <Page
      title={
        <styled.span display="inline-flex" alignItems="center" gap="4">
          <styled.img src={c.thumbnail} alt="" width="64" height="64" borderRadius="full" bg="gray.a3" flexShrink="0" style={{ width: 64, height: 64 }} />
          {c.title}
        </styled.span>
      }
      actions={
        <>
          {c.subscribed ? (
            <Button variant="outline" onClick={() => setConfirming(true)}>
              <BellOffIcon />
              Unsubscribe
            </Button>
          ) : (
            <SubscribeButton subscribe={subscribe} channelId={c.id} />
          )}
          <AutoplayButton />
        </>
      }
    >
      {!c.subscribed && !c.updating && (
        // looked up for this visit: its videos come once it is followed
        <styled.p color="fg.muted">You do not follow this channel yet. Subscribe to see its videos here.</styled.p>
      )}
      {c.subscribed && (
        <styled.section aria-label="Podcast and keeping" mb="4" display="flex" flexDirection="column" gap="4">
          <PodcastSwitch channelId={c.id} channelTitle={c.title} />
          <KeepSwitch channelId={c.id} channelTitle={c.title} />
        </styled.section>
      )}
      {c.updating && (
        <styled.div display="flex" alignItems="center" gap="3" color="fg.muted" role="status">
          <Spinner size="sm" label="Updating" />
          Retrieving latest videos...
        </styled.div>
      )}
      <VideoList channelId={c.id} search={search} onSearchChange={(next) => navigate({ search: next })} />
      <UnsubscribeDialog channel={confirming ? c : null} onClose={() => setConfirming(false)} />
    </Page>
  )
}

function SubscribeButton({ subscribe, channelId }: { subscribe: ReturnType<typeof useSubscribe>; channelId: string }) {
  return (
    <Button
      variant="outline"
      loading={subscribe.isPending}
      onClick={() => subscribe.mutate(channelId, { onError: (err) => notify.error('Could not subscribe', errorText(err)) })}
    >
      <BellIcon />
      Subscribe
    </Button>
  )
}
