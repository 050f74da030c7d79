import { describe, expect, test } from 'bun:test'
import { QueryClient, QueryObserver } from '@tanstack/react-query'
import { queryKeys } from '~/lib/query-keys.ts'
import { applyChannelMessage, catchUp } from './channel-message.ts'

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

describe('catchUp: what the channel socket may have missed before it opened', () => {
  const OTHER = 'UCzzzzzzzzzzzzzzzzzzzzzz'
  function cached() {
    const client = new QueryClient({ defaultOptions: { queries: { staleTime: 60_000, retry: false } } })
    const keys = {
      detail: queryKeys.youtubeChannel.detail(CHANNEL),
      videos: queryKeys.youtubeChannelVideos.list(CHANNEL, { page: 1 }),
      otherDetail: queryKeys.youtubeChannel.detail(OTHER),
      otherVideos: queryKeys.youtubeChannelVideos.list(OTHER, { page: 1 }),
      subscriptions: queryKeys.youtubeSubscription.list(1, 48),
      feed: queryKeys.youtubeVideo.list({ page: 1 }),
    }
    client.setQueryData(keys.videos, { videos: [] })
    client.setQueryData(keys.otherDetail, { id: OTHER, updating: false })
    client.setQueryData(keys.otherVideos, { videos: [] })
    client.setQueryData(keys.subscriptions, { channels: [{ id: OTHER, updating: false }], totalPages: 1 })
    client.setQueryData(keys.feed, { videos: [] })
    const stale = (key: readonly unknown[]) => client.getQueryState(key)?.isInvalidated ?? false
    return { client, keys, stale }
  }

  test('first open: a channel shown as refreshing is read again with its videos; the others are left alone', () => {
    const { client, keys, stale } = cached()
    client.setQueryData(keys.detail, { id: CHANNEL, updating: true })
    catchUp(client, false)
    expect(stale(keys.detail)).toBe(true)
    expect(stale(keys.videos)).toBe(true)
    expect([keys.otherDetail, keys.otherVideos, keys.subscriptions, keys.feed].map(stale)).toEqual([false, false, false, false])
  })

  test('first open: a subscription card shown as refreshing has its list, channel and videos read again', () => {
    const { client, keys, stale } = cached()
    client.setQueryData(keys.subscriptions, { channels: [{ id: OTHER, updating: true }], totalPages: 1 })
    catchUp(client, false)
    expect([keys.subscriptions, keys.otherDetail, keys.otherVideos].map(stale)).toEqual([true, true, true])
    expect([keys.videos, keys.feed].map(stale)).toEqual([false, false])
  })

  test('first open: a channel read still on its way is checked once it has answered', async () => {
    const { client, keys, stale } = cached()
    let answer!: (c: { id: string; updating: boolean }) => void
    const read = client.prefetchQuery({ queryKey: keys.detail, queryFn: () => new Promise((resolve) => (answer = resolve)) })
    catchUp(client, false)
    expect(stale(keys.videos)).toBe(false)
    answer({ id: CHANNEL, updating: true })
    await read
    await Bun.sleep(0)
    expect(stale(keys.detail)).toBe(true)
    expect(stale(keys.videos)).toBe(true)
    expect(stale(keys.otherVideos)).toBe(false)
  })

  test('reconnect: channels, their videos, the subscriptions and the feed are all read again', () => {
    const { client, keys, stale } = cached()
    catchUp(client, true)
    expect([keys.videos, keys.otherDetail, keys.otherVideos, keys.subscriptions, keys.feed].map(stale)).toEqual([true, true, true, true, true])
  })
})

