import { useQuery } from '@tanstack/react-query'
import { getRouteApi, Link } from '@tanstack/react-router'
import { HardDriveIcon, RefreshCwIcon, UserMinusIcon } from 'lucide-react'
import { memo, useState } from 'react'
import { css } from 'styled-system/css'
import { styled } from 'styled-system/jsx'
import { button } from 'styled-system/recipes'
import { Page } from '~/components/layout/page.tsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button, IconButton } from '~/components/ui/button.tsx'
import { Pagination } from '~/components/ui/pagination.tsx'
import { PageSpinner, Spinner } from '~/components/ui/spinner.tsx'
import { Tooltip } from '~/components/ui/tooltip.tsx'
import { errorText } from '~/lib/api.ts'
import { subscriptionsQuery } from '../api.ts'
import { useChannelListen } from '../live.ts'
import { CardLink, channelPath } from './card-link.tsx'
import { GroupsSection } from './groups-section.tsx'
import { KeepSwitch } from './keep-switch.tsx'
import { PodcastSwitch } from './podcast-switch.tsx'
import { UnsubscribeDialog } from './unsubscribe-dialog.tsx'
import { UpdateSubscriptionsDialog } from './update-subscriptions-dialog.tsx'
import { CardCell, CardGrid } from './video-grid.tsx'

const route = getRouteApi('/_app/youtube/subscriptions')

type ChannelItem = { id: string; title: string; thumbnail: string; updating: boolean }

/** /youtube/subscriptions (docs/product.md#subscriptions-page): 'Update Subscriptions', then the subscribed channels, 48 a page. */
export function SubscriptionsPage() {
  const { page = 1 } = route.useSearch()
  const navigate = route.useNavigate()
  const list = useQuery(subscriptionsQuery(page))
  const [updating, setUpdating] = useState(false)
  const [removing, setRemoving] = useState<ChannelItem | null>(null)
  useChannelListen()

  const channels = list.data?.channels ?? []
  return (
    <Page
      title="Subscriptions"
      actions={
        <>
          {list.isFetching && !list.isPending && <Spinner size="sm" label="Loading subscriptions" />}
          <Link to="/youtube/kept" className={button({ variant: 'outline' })}>
            <HardDriveIcon />
            Kept
          </Link>
          <Button onClick={() => setUpdating(true)}>
            <RefreshCwIcon />
            Update Subscriptions
          </Button>
        </>
      }
    >
      <GroupsSection />
      {list.isPending && <PageSpinner label="Loading subscriptions" />}
      {list.isError && !list.data && <Alert status="error">{errorText(list.error)}</Alert>}
      {list.isSuccess && channels.length === 0 && (
        <styled.p color="fg.muted" py="10" textAlign="center">
          No subscriptions yet. Add channels with Update Subscriptions.
        </styled.p>
      )}
      <CardGrid label="Subscriptions" compact>
        {channels.map((c) => (
          <CardCell key={c.id}>
            <ChannelCard channel={c} onUnsubscribe={setRemoving} />
          </CardCell>
        ))}
      </CardGrid>
      <Pagination
        page={page}
        totalPages={list.data?.totalPages ?? 0}
        onPageChange={(p) => navigate({ search: { page: p > 1 ? p : undefined } })}
      />
      <UpdateSubscriptionsDialog open={updating} onOpenChange={setUpdating} />
      <UnsubscribeDialog channel={removing} onClose={() => setRemoving(null)} />
    </Page>
  )
}

// the unsubscribe control shows on hover or focus, always on touch screens
const channelCard = css({
  position: 'relative',
  display: 'flex',
  alignItems: 'center',
  gap: '4',
  p: '4',
  borderWidth: '1px',
  borderRadius: 'l3',
  bg: 'gray.a2',
  transition: 'background 0.15s ease',
  _hover: { bg: 'gray.a3' },
  '& [data-reveal]': { opacity: '0', transition: 'opacity 0.15s ease' },
  '&:hover [data-reveal], &:focus-within [data-reveal]': { opacity: '1' },
  '@media (hover: none)': { '& [data-reveal]': { opacity: '1' } },
})

const ChannelCard = memo(function ChannelCard({ channel, onUnsubscribe }: { channel: ChannelItem; onUnsubscribe(c: ChannelItem): void }) {
  return (
    <article className={channelCard} aria-label={channel.title}>
      <CardLink href={channelPath(channel.id)} tabIndex={-1} aria-hidden>
        <styled.img src={channel.thumbnail} alt="" loading="lazy" width="56" height="56" borderRadius="full" bg="gray.a3" flexShrink="0" style={{ width: 56, height: 56 }} />
      </CardLink>
      <styled.div display="flex" flexDirection="column" gap="0.5" minW="0" flex="1">
        <CardLink href={channelPath(channel.id)}>
          <styled.span display="block" fontWeight="semibold" truncate _hover={{ textDecoration: 'underline' }}>
            {channel.title}
          </styled.span>
        </CardLink>
        {channel.updating && (
          <styled.span display="inline-flex" alignItems="center" gap="1.5" textStyle="xs" color="fg.muted">
            <Spinner size="xs" label="Updating" />
            Retrieving latest videos...
          </styled.span>
        )}
        <PodcastSwitch channelId={channel.id} channelTitle={channel.title} compact />
        <KeepSwitch channelId={channel.id} channelTitle={channel.title} compact />
      </styled.div>
      <Tooltip content="Unsubscribe">
        {/* at the top, beside the title: clear of the podcast line's "videos" */}
        <IconButton data-reveal="" alignSelf="flex-start" flexShrink="0" aria-label={`Unsubscribe from ${channel.title}`} variant="ghost" size="sm" onClick={() => onUnsubscribe(channel)}>
          <UserMinusIcon />
        </IconButton>
      </Tooltip>
    </article>
  )
})
