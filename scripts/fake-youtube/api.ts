import { YOUTUBE_CATEGORIES } from '../../src/youtube/categories.ts'
import { channelsList } from './api-channels.ts'
import { subscriptionsList } from './api-subscriptions.ts'
import { playlistItemsList, videosList } from './api-videos.ts'
import type { FakeYoutube } from './server.ts'
import { ERRORS } from './api-common.ts'

// The Data API v3 edge: key, quota, injected failures, `part` and the endpoint groups.
export function api(fake: FakeYoutube, resource: string, params: URLSearchParams): Response {
  fake.calls[resource] = (fake.calls[resource] ?? 0) + 1
  if (fake.apiKey) {
    const key = params.get('key')
    if (!key) return ERRORS.missingKey()
    if (key !== fake.apiKey) return ERRORS.badKey()
  }
  if (fake.quota !== null && fake.units >= fake.quota) return ERRORS.quotaExceeded()
  if (!['channels', 'playlistItems', 'videos', 'subscriptions', 'videoCategories'].includes(resource)) {
    return ERRORS.notFound()
  }
  // every answered list call costs 1 unit, errors included
  fake.units += 1
  const failure = fake.takeFailure()
  if (failure) return ERRORS.backend(failure)
  const part = params.get('part')
  if (!part) return ERRORS.required('part')
  const parts = new Set(part.split(','))
  switch (resource) {
    case 'channels':
      return channelsList(fake, params, parts)
    case 'playlistItems':
      return playlistItemsList(fake, params, parts)
    case 'videos':
      return videosList(fake, params, parts)
    case 'subscriptions':
      return subscriptionsList(fake, params)
    default:
      return Response.json({
        kind: 'youtube#videoCategoryListResponse',
        etag: 'fake',
        items: YOUTUBE_CATEGORIES.map((c) => ({
          kind: 'youtube#videoCategory',
          etag: `fake-${c.id}`,
          id: String(c.id),
          snippet: { title: c.name, assignable: c.assignable, channelId: 'UCBR8-60-B28hp2BmDPdntcQ' },
        })),
      })
  }
}
