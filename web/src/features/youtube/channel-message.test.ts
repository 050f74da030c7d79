import { describe, expect, test } from 'bun:test'
import { QueryClient, QueryObserver } from '@tanstack/react-query'
import { queryKeys } from '~/lib/query-keys.ts'
import { applyChannelMessage } from './channel-message.ts'

const CHANNEL = 'UCVSKOHeEN_FHs0y6Fv9b0Lt'
type List = { videos: string[] }

/**
 * A channel's video list whose server answers are given by the test: the first call waits
 * for `answerFirst` (what the server said before the refresh wrote anything), later calls
 * answer the refreshed list at once.
 */
function channelList() {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: 60_000, retry: false } } })
  const key = queryKeys.youtubeChannelVideos.list(CHANNEL, { page: 1 })
  let calls = 0
  let answerFirst!: (list: List) => void
  const first = new Promise<List>((resolve) => (answerFirst = resolve))
  const queryFn = () => (++calls === 1 ? first : Promise.resolve({ videos: ['v1', 'v2'] }))
  return { client, key, queryFn, answerFirst, calls: () => calls }
}

async function until(check: () => boolean, ms = 1000) {
  const end = Date.now() + ms
  while (!check() && Date.now() < end) await Bun.sleep(5)
}

describe('applyChannelMessage (docs/product.md#live-updates)', () => {
  test('the end of a refresh refetches a shown video list whose first answer was still on its way', async () => {
    const { client, key, queryFn, answerFirst, calls } = channelList()
    // the channel page's list, mounted when Subscribe answered: its first fetch is running
    const observer = new QueryObserver(client, { queryKey: key, queryFn })
    const unsubscribe = observer.subscribe(() => {})
    expect(client.getQueryState(key)?.fetchStatus).toBe('fetching')

    applyChannelMessage(client, { id: CHANNEL, updating: false })
    // the answer asked before the refresh's videos were written arrives after the message
    answerFirst({ videos: [] })
    await until(() => (client.getQueryData<List>(key)?.videos.length ?? 0) > 0)
    expect(client.getQueryData<List>(key)).toEqual({ videos: ['v1', 'v2'] })
    expect(calls()).toBe(2)
    unsubscribe()
  })

  test('a list being fetched while nobody shows it is left stale, so the next page to show it asks again', async () => {
    const { client, key, queryFn, answerFirst, calls } = channelList()
    const prefetch = client.prefetchQuery({ queryKey: key, queryFn })
    applyChannelMessage(client, { id: CHANNEL, updating: false })
    answerFirst({ videos: [] })
    await prefetch
    await until(() => client.getQueryState(key)?.isInvalidated === true)
    expect(client.getQueryState(key)?.isInvalidated).toBe(true)
    expect(calls()).toBe(1)
  })

  test('a list that holds data is refetched at once; a refresh starting leaves the videos alone', async () => {
    const client = new QueryClient({ defaultOptions: { queries: { staleTime: 60_000, retry: false } } })
    const key = queryKeys.youtubeChannelVideos.list(CHANNEL, { page: 1 })
    const detail = queryKeys.youtubeChannel.detail(CHANNEL)
    client.setQueryData(key, { videos: [] })
    client.setQueryData(detail, { id: CHANNEL, updating: false })

    applyChannelMessage(client, { id: CHANNEL, updating: true })
    expect(client.getQueryData<{ updating: boolean }>(detail)?.updating).toBe(true)
    expect(client.getQueryState(key)?.isInvalidated).toBe(false)

    applyChannelMessage(client, { id: CHANNEL, updating: false })
    expect(client.getQueryData<{ updating: boolean }>(detail)?.updating).toBe(false)
    expect(client.getQueryState(key)?.isInvalidated).toBe(true)
  })

  test('a keep-alive changes nothing', () => {
    const client = new QueryClient()
    const key = queryKeys.youtubeChannelVideos.list(CHANNEL, { page: 1 })
    client.setQueryData(key, { videos: [] })
    applyChannelMessage(client, { status: 'PING' })
    expect(client.getQueryState(key)?.isInvalidated).toBe(false)
  })
})
