import { describe, expect, test } from 'bun:test'
import { QueryClient } from '@tanstack/react-query'
import { patchVideoCaches, patchVideoData, restoreCaches } from './video-cache.ts'

const v = (id: string, liked: string | null = null) => ({ id, liked, queued: null as string | null, watched: null as string | null })

describe('optimistic video marks', () => {
  test('patches lists and pages (with their related videos), leaves the rest alone', () => {
    const list = { videos: [v('a'), v('b')], totalPages: 1 }
    const patched = patchVideoData(list, 'b', { liked: 'T' }) as typeof list
    expect(patched.videos[1]!.liked).toBe('T')
    expect(patched.videos[0]).toBe(list.videos[0]!) // untouched items keep their identity (memoised cards)
    expect(patchVideoData(list, 'zzz', { liked: 'T' })).toBe(list)
    const detail = { ...v('x'), relatedVideos: [v('b')] }
    expect((patchVideoData(detail, 'b', { queued: 'Q' }) as typeof detail).relatedVideos[0]!.queued).toBe('Q')
    expect(patchVideoData({ playedSeconds: 3 }, 'x', { liked: 'T' })).toEqual({ playedSeconds: 3 })
  })

  test('every cached copy changes at once and comes back on rollback', () => {
    const qc = new QueryClient()
    qc.setQueryData(['YoutubeVideo', 'list', { page: 1 }], { videos: [v('a'), v('b')], totalPages: 1 })
    qc.setQueryData(['YoutubeChannelVideos', 'UC1', { page: 1 }], { videos: [v('b')], totalPages: 1 })
    qc.setQueryData(['YoutubeVideo', 'detail', 'b'], { ...v('b'), relatedVideos: [] })
    qc.setQueryData(['YoutubeVideo', 'progress', 'b'], { playedSeconds: 4, duration: 30 })
    qc.setQueryData(['MusicJob', 'list'], { videos: [v('b')] })

    const snapshot = patchVideoCaches(qc, 'b', { liked: '2026-01-01T00:00:00Z' })
    expect(snapshot).toHaveLength(3)
    expect(qc.getQueryData<{ videos: { liked: string }[] }>(['YoutubeVideo', 'list', { page: 1 }])!.videos[1]!.liked).toBe('2026-01-01T00:00:00Z')
    expect(qc.getQueryData<{ videos: { liked: string }[] }>(['YoutubeChannelVideos', 'UC1', { page: 1 }])!.videos[0]!.liked).toBe('2026-01-01T00:00:00Z')
    expect(qc.getQueryData<{ liked: string }>(['YoutubeVideo', 'detail', 'b'])!.liked).toBe('2026-01-01T00:00:00Z')
    expect(qc.getQueryData<{ videos: { liked: null }[] }>(['MusicJob', 'list'])!.videos[0]!.liked).toBeNull()

    restoreCaches(qc, snapshot)
    expect(qc.getQueryData<{ videos: { liked: null }[] }>(['YoutubeVideo', 'list', { page: 1 }])!.videos[1]!.liked).toBeNull()
    expect(qc.getQueryData<{ liked: null }>(['YoutubeVideo', 'detail', 'b'])!.liked).toBeNull()
  })
})
