import { useQuery } from '@tanstack/react-query'
import { getRouteApi, Link } from '@tanstack/react-router'
import { Trash2Icon } from 'lucide-react'
import { styled } from 'styled-system/jsx'
import { Page } from '~/components/layout/page.tsx'
import { Alert } from '~/components/ui/alert.tsx'
import { Button } from '~/components/ui/button.tsx'
import { Pagination } from '~/components/ui/pagination.tsx'
import { PageSpinner } from '~/components/ui/spinner.tsx'
import { errorText } from '~/lib/api.ts'
import { formatBytes, KEPT_STATE_WORDS, keptQuery, useRemoveKept } from '../keep-api.ts'

const route = getRouteApi('/_app/youtube/kept')

/** /youtube/kept (docs/product.md "Keeping videos"): usage against the quota, each kept video's state and size, Remove. */
export function KeptPage() {
  const { page = 1 } = route.useSearch()
  const navigate = route.useNavigate()
  const kept = useQuery(keptQuery(page))
  const remove = useRemoveKept()
  if (kept.isPending) return <PageSpinner label="Loading kept videos" />
  if (kept.isError) {
    return (
      <Page title="Kept videos">
        <Alert status="error">Kept videos could not be loaded: {errorText(kept.error)}</Alert>
      </Page>
    )
  }
  const { videos, totalPages, usedBytes, quotaBytes } = kept.data
  const over = quotaBytes !== null && usedBytes >= quotaBytes
  return (
    <Page title="Kept videos">
      <styled.div display="flex" flexDirection="column" gap="2" maxW="2xl">
        <styled.p data-testid="kept-usage">
          {quotaBytes === null ? `Kept videos use ${formatBytes(usedBytes)} on the server.` : `Kept videos use ${formatBytes(usedBytes)} of your ${formatBytes(quotaBytes)}.`}
        </styled.p>
        {quotaBytes !== null && (
          <styled.progress value={Math.min(usedBytes, quotaBytes)} max={quotaBytes} aria-label="Space used by kept videos" w="full" h="2" />
        )}
        {over && <Alert status="error">Your space for kept videos is used up: remove kept videos, or ask an admin for more space.</Alert>}
      </styled.div>
      {videos.length === 0 ? (
        <styled.p color="fg.muted">
          No videos are kept. Turn on Keep on a channel's page or on{' '}
          <Link to="/youtube/subscriptions" style={{ textDecoration: 'underline' }}>
            Subscriptions
          </Link>
          , or keep one video from its page.
        </styled.p>
      ) : (
        <styled.ul display="flex" flexDirection="column" gap="3" aria-label="Kept videos">
          {videos.map((v) => (
            <styled.li key={v.id} display="flex" alignItems="center" gap="3" borderWidth="1px" borderRadius="l2" p="2" flexWrap={{ base: 'wrap', sm: 'nowrap' }}>
              <styled.img src={v.thumbnail} alt="" width="120" height="68" borderRadius="l1" bg="gray.a3" flexShrink="0" style={{ width: 120, height: 68, objectFit: 'cover' }} />
              <styled.div display="flex" flexDirection="column" gap="0.5" minW="0" flex="1">
                <Link to="/youtube/video/$id" params={{ id: v.id }}>
                  <styled.span fontWeight="semibold" _hover={{ textDecoration: 'underline' }} lineClamp="2">
                    {v.title}
                  </styled.span>
                </Link>
                <styled.span textStyle="sm" color="fg.muted">
                  {v.channel.title}
                </styled.span>
                <styled.span textStyle="sm" data-kept-state={v.kept?.state}>
                  {v.kept ? KEPT_STATE_WORDS[v.kept.state] : 'Not kept'}
                  {v.kept?.sizeBytes ? ` · ${formatBytes(v.kept.sizeBytes)}` : ''}
                  {v.kept?.height ? ` · ${v.kept.height}p` : ''}
                  {v.kept?.pinned ? ' · kept by hand' : ''}
                </styled.span>
                {v.kept?.state === 'failed' && v.kept.error && (
                  <styled.span textStyle="sm" color="fg.error">
                    {v.kept.error}
                  </styled.span>
                )}
              </styled.div>
              <Button variant="outline" size="sm" aria-label={`Remove ${v.title}`} disabled={remove.isPending && remove.variables?.id === v.id} onClick={() => remove.mutate({ id: v.id })}>
                <Trash2Icon />
                Remove
              </Button>
            </styled.li>
          ))}
        </styled.ul>
      )}
      {remove.isError && (
        <styled.p color="fg.error" role="alert">
          The video could not be removed: {errorText(remove.error)}
        </styled.p>
      )}
      {totalPages > 1 && <Pagination page={page} totalPages={totalPages} onPageChange={(p) => navigate({ search: { page: p } })} />}
    </Page>
  )
}
