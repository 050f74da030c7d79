import { ERRORS, MAX_RESULTS, apiError, iso } from './api-common.ts'
import type { FakeChannel } from './data.ts'
import type { FakeYoutube } from './server.ts'
import { thumbnails } from './thumbnails.ts'

export function channelResource(fake: FakeYoutube, c: FakeChannel, parts: Set<string>) {
  return {
    kind: 'youtube#channel',
    etag: `fake-${c.id}`,
    id: c.id,
    ...(parts.has('snippet')
      ? {
          snippet: {
            title: c.title,
            description: c.description,
            customUrl: c.handle,
            publishedAt: iso(c.publishedAt),
            thumbnails: thumbnails(fake, 'channel', c.id),
            localized: { title: c.title, description: c.description },
          },
        }
      : {}),
    ...(parts.has('contentDetails') ? { contentDetails: { relatedPlaylists: { likes: '', uploads: `UU${c.id.slice(2)}` } } } : {}),
  }
}

export function channelsList(fake: FakeYoutube, params: URLSearchParams, parts: Set<string>): Response {
  const ids = params.get('id')
  const handle = params.get('forHandle')
  if (!ids && !handle) return apiError(400, 'missingRequiredParameter', 'No filter selected. Expected one of: forUsername, id, idParam, categoryId, forHandle, mine, mySubscribers, managedByMe', 'youtube.parameter')
  let found: FakeChannel[] = []
  if (ids) {
    const list = ids.split(',')
    if (list.length > MAX_RESULTS) return ERRORS.invalid('id', ids)
    found = list.map((id) => fake.channels.get(id.trim())).filter((c): c is FakeChannel => !!c)
  } else {
    const h = handle!.startsWith('@') ? handle! : `@${handle}`
    const id = fake.handles.get(h.toLowerCase())
    if (id) found = [fake.channels.get(id)!]
  }
  // like the real API: no `items` key at all when nothing matched
  return Response.json({
    kind: 'youtube#channelListResponse',
    etag: 'fake',
    pageInfo: { totalResults: found.length, resultsPerPage: 5 },
    ...(found.length ? { items: found.map((c) => channelResource(fake, c, parts)) } : {}),
  })
}
