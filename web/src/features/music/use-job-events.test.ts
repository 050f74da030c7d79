import { describe, expect, test } from 'bun:test'
import { QueryClient } from '@tanstack/react-query'
import { queryKeys } from '~/lib/query-keys.ts'
import type { MusicJob } from './api.ts'
import { applyJobEvent, RECONNECT_MAX_MS, RECONNECT_MIN_MS, reconnectDelay } from './use-job-events.ts'

const job = (id: string, extra: Partial<MusicJob> = {}): MusicJob => ({
  id,
  videoUrl: 'https://x.test/v',
  originalFilename: null,
  filenameUrl: null,
  artworkUrl: null,
  title: id,
  artist: 'a',
  album: 'b',
  grouping: null,
  completed: null,
  failed: null,
  downloadUrl: null,
  downloadFilename: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  progress: 0,
  webdav: null,
  trackNumber: null,
  year: null,
  tracks: [],
  notice: null,
  lyrics: null,
  waiting: null,
  error: null,
  errorKind: null,
  ...extra,
})

function setup() {
  const client = new QueryClient()
  const page1 = queryKeys.musicJob.list(1, 5)
  const page2 = queryKeys.musicJob.list(2, 5)
  client.setQueryData(page1, { jobs: [job('a'), job('b', { completed: '2026-01-01T00:00:01.000Z', progress: 100 })], totalPages: 2 })
  client.setQueryData(page2, { jobs: [job('c')], totalPages: 2 })
  const stale = (key: readonly unknown[]) => client.getQueryState(key)?.isInvalidated ?? false
  const jobs = (key: readonly unknown[]) => client.getQueryData<{ jobs: MusicJob[] }>(key)!.jobs
  return { client, page1, page2, stale, jobs }
}

describe('applyJobEvent (docs/product.md#live-updates)', () => {
  test('STARTED refreshes every list page', () => {
    const { client, page1, page2, stale } = setup()
    applyJobEvent(client, { id: 'new', status: 'STARTED' })
    expect(stale(page1)).toBe(true)
    expect(stale(page2)).toBe(true)
  })

  test('COMPLETED refreshes only the pages holding the job', () => {
    const { client, page1, page2, stale } = setup()
    applyJobEvent(client, { id: 'c', status: 'COMPLETED' })
    expect(stale(page1)).toBe(false)
    expect(stale(page2)).toBe(true)
  })

  test('COMPLETED also refreshes a page whose fetch is on its way (its answer may predate the completion)', async () => {
    const { client, page1, stale } = setup()
    const page3 = queryKeys.musicJob.list(3, 5)
    let calls = 0
    void client.prefetchQuery({ queryKey: page3, queryFn: () => new Promise((resolve) => setTimeout(() => resolve({ jobs: [], totalPages: 3, call: ++calls }), 20)) })
    expect(client.getQueryState(page3)?.fetchStatus).toBe('fetching')
    applyJobEvent(client, { id: 'not-cached-yet', status: 'COMPLETED' })
    expect(stale(page1)).toBe(false)
    expect(stale(page3)).toBe(true)
    // its first answer, asked before the completion, does not clear the mark: the page asks again when shown
    await client.getQueryCache().find({ queryKey: page3 })!.promise
    await Bun.sleep(0)
    expect(calls).toBe(1)
    expect(stale(page3)).toBe(true)
  })

  test('PROGRESS updates the cached progress of a running job, nothing else', () => {
    const { client, page1, page2, stale, jobs } = setup()
    applyJobEvent(client, { id: 'a', status: 'PROGRESS', progress: 42 })
    expect(jobs(page1).map((j) => j.progress)).toEqual([42, 100])
    applyJobEvent(client, { id: 'b', status: 'PROGRESS', progress: 7 })
    expect(jobs(page1)[1]!.progress).toBe(100)
    expect(jobs(page2)[0]!.progress).toBe(0)
    expect(stale(page1) || stale(page2)).toBe(false)
  })

  test('PING changes nothing', () => {
    const { client, page1, page2, stale } = setup()
    const before = client.getQueryData(page1)
    applyJobEvent(client, { status: 'PING' })
    expect(client.getQueryData(page1)).toBe(before)
    expect(stale(page1) || stale(page2)).toBe(false)
  })
})

test('reconnect delays back off from 1 s to 30 s with jitter', () => {
  expect(reconnectDelay(0, () => 0)).toBe(RECONNECT_MIN_MS / 2)
  expect(reconnectDelay(0, () => 1)).toBe(RECONNECT_MIN_MS)
  expect(reconnectDelay(3, () => 1)).toBe(8_000)
  expect(reconnectDelay(20, () => 1)).toBe(RECONNECT_MAX_MS)
  expect(reconnectDelay(20, () => 0)).toBe(RECONNECT_MAX_MS / 2)
})
