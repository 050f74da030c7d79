import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { RefreshCwIcon } from 'lucide-react'
import { useState } from 'react'
import { styled } from 'styled-system/jsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { CardBody, CardRoot } from '~/components/ui/card.tsx'
import { ConfirmDialog } from '~/components/ui/confirm-dialog.tsx'
import { PodcastEpisodes, summaryText } from '~/components/podcast-episodes.tsx'
import { Heading } from '~/components/ui/heading.tsx'
import { PageSpinner } from '~/components/ui/spinner.tsx'
import { api, errorText, request } from '~/lib/api.ts'
import { podcastsQuery } from '~/lib/podcasts-api.ts'
import { queryKeys } from '~/lib/query-keys.ts'
import { CopyField } from './music-players-tab.tsx'

/**
 * Account → Podcasts (docs/product.md#podcasts): the private feed addresses with copy buttons,
 * one feed of them all, the OPML file, and new addresses (the old ones stop working at once).
 */
export function PodcastsTab() {
  const podcasts = useQuery(podcastsQuery)
  const queryClient = useQueryClient()
  const rotate = useMutation({
    mutationFn: () => request(api.youtube.podcasts.rotate.$post()),
    onSuccess: (data) => queryClient.setQueryData(queryKeys.youtubePodcast.all, data),
  })
  const [confirming, setConfirming] = useState(false)
  const [rotated, setRotated] = useState(false)
  return (
    <CardRoot>
      <CardBody pt="6" display="flex" flexDirection="column" gap="6">
        <styled.p color="fg.muted" textStyle="sm">
          Channels you follow can be private podcasts: turn on Podcast on a channel's page or in your{' '}
          <Link to="/youtube/subscriptions" style={{ textDecoration: 'underline' }}>
            subscriptions
          </Link>
          . Their newest videos become episodes, with the sponsor segments you skip cut out. Add an address below to a podcast app. The
          addresses work without signing in, so keep them to yourself.
        </styled.p>
        {podcasts.isPending ? (
          <PageSpinner label="Loading podcasts" />
        ) : podcasts.isError ? (
          <Alert status="error" title="Your podcasts could not be loaded">
            {errorText(podcasts.error)}
          </Alert>
        ) : (
          <>
            <styled.section aria-labelledby="podcasts-feeds" display="flex" flexDirection="column" gap="4">
              <Heading as="h3" id="podcasts-feeds" textStyle="md" fontWeight="semibold">
                Feeds
              </Heading>
              {podcasts.data.feeds.length === 0 ? (
                <styled.p textStyle="sm" color="fg.muted">
                  No channel is a podcast yet.
                </styled.p>
              ) : (
                <styled.ul display="flex" flexDirection="column" gap="4" aria-label="Podcast feeds">
                  {podcasts.data.feeds.map((f) => (
                    <styled.li key={f.channelId} display="flex" flexDirection="column" gap="2">
                      <CopyField label={`${f.title}: ${summaryText(f)}`} value={f.url} />
                      <PodcastEpisodes channelId={f.channelId} channelTitle={f.title} summary={f} />
                    </styled.li>
                  ))}
                </styled.ul>
              )}
              <CopyField label="All your podcasts in one feed" value={podcasts.data.allUrl} />
            </styled.section>
            <styled.section aria-labelledby="podcasts-opml" display="flex" flexDirection="column" gap="3">
              <Heading as="h3" id="podcasts-opml" textStyle="md" fontWeight="semibold">
                Import them all at once
              </Heading>
              <styled.p textStyle="sm" color="fg.muted">
                Most podcast apps import an OPML file: it subscribes to every feed above.{' '}
                <styled.a href={podcasts.data.opmlUrl} download="tunefeed-podcasts.opml" textDecoration="underline">
                  Download the OPML file
                </styled.a>
                , or give the app its address.
              </styled.p>
              <CopyField label="OPML file address" value={podcasts.data.opmlUrl} />
            </styled.section>
            <styled.section aria-labelledby="podcasts-rotate" display="flex" flexDirection="column" gap="3" alignItems="flex-start">
              <Heading as="h3" id="podcasts-rotate" textStyle="md" fontWeight="semibold">
                New addresses
              </Heading>
              <styled.p textStyle="sm" color="fg.muted">
                If an address got out, make new ones. The old addresses stop working at once, in every app that uses them.
              </styled.p>
              <Button variant="outline" colorPalette="red" color="red.text" borderColor="red.a7" onClick={() => setConfirming(true)}>
                <RefreshCwIcon />
                Make New Addresses
              </Button>
              <styled.p textStyle="sm" role="status">
                {rotated ? 'New addresses made. The old ones no longer work: add the new ones to your podcast apps.' : ''}
              </styled.p>
            </styled.section>
          </>
        )}
        <ConfirmDialog
          open={confirming}
          onClose={() => setConfirming(false)}
          title="Make new feed addresses?"
          description="Every current feed, audio and artwork address stops working at once. Podcast apps subscribed with them get no new episodes until you add the new addresses."
          confirm="Make New Addresses"
          pending={rotate.isPending}
          error={rotate.isError ? `New addresses could not be made: ${errorText(rotate.error)}` : null}
          onConfirm={() =>
            rotate.mutate(undefined, {
              onSuccess: () => {
                setConfirming(false)
                setRotated(true)
              },
            })
          }
        />
      </CardBody>
    </CardRoot>
  )
}
