import { ERRORS, apiError, iso, page } from './api-common.ts'
import type { FakeChannel } from './data.ts'
import type { FakeYoutube } from './server.ts'
import { thumbnails } from './thumbnails.ts'

export function subscriptionsList(fake: FakeYoutube, params: URLSearchParams): Response {
  const channelId = params.get('channelId')
  if (!channelId) return apiError(400, 'missingRequiredParameter', 'No filter selected. Expected one of: channelId, id, mine, myRecentSubscribers, mySubscribers', 'youtube.parameter')
  const viewer = fake.channels.get(channelId)
  if (!viewer) return ERRORS.subscriberNotFound()
  if (viewer.subscriptions === null) return ERRORS.subscriptionForbidden()
  const subscribed = viewer.subscriptions.map((id) => fake.channels.get(id)).filter((c): c is FakeChannel => !!c)
  if (params.get('order') === 'alphabetical') subscribed.sort((a, b) => a.title.localeCompare(b.title))
  const paged = page(subscribed, params, `subs-${channelId}`)
  if (paged instanceof Response) return paged
  return Response.json({
    kind: 'youtube#subscriptionListResponse',
    etag: 'fake',
    ...paged.fields,
    items: paged.items.map((c) => ({
      kind: 'youtube#subscription',
      etag: `fake-${viewer.id}-${c.id}`,
      id: Buffer.from(`${viewer.id}.${c.id}`).toString('base64url'),
      snippet: {
        publishedAt: iso(c.publishedAt),
        title: c.title,
        description: c.description,
        resourceId: { kind: 'youtube#channel', channelId: c.id },
        channelId: viewer.id,
        thumbnails: thumbnails(fake, 'channel', c.id),
      },
    })),
  })
}
