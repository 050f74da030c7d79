import { ERRORS, MAX_RESULTS, apiError, iso, page } from './api-common.ts'
import type { FakeVideo } from './data.ts'
import type { FakeYoutube } from './server.ts'
import { thumbnails } from './thumbnails.ts'

export function videoSnippet(fake: FakeYoutube, v: FakeVideo) {
  const channel = fake.channels.get(v.channelId)!
  return {
    publishedAt: iso(v.publishedAt),
    channelId: v.channelId,
    title: v.title,
    description: v.description,
    thumbnails: thumbnails(fake, 'vi', v.id),
    channelTitle: channel.title,
  }
}

export function playlistItemsList(fake: FakeYoutube, params: URLSearchParams, parts: Set<string>): Response {
  const playlistId = params.get('playlistId')
  if (!playlistId) return apiError(400, 'playlistIdRequired', 'The request does not specify a value for the required <code>playlistId</code> property.', 'youtube.playlistItem')
  // UU + suffix: the uploads; UUSH + suffix: the channel's Shorts (absent when it has none)
  const shorts = playlistId.startsWith('UUSH')
  const channel = playlistId.startsWith('UU') ? fake.channels.get(`UC${playlistId.slice(shorts ? 4 : 2)}`) : undefined
  const uploads = shorts ? channel?.uploads.filter((id) => fake.videos.get(id)!.kind === 'short') : channel?.uploads
  if (!channel || (shorts && !uploads?.length)) return ERRORS.playlistNotFound()
  const paged = page(uploads!, params, playlistId)
  if (paged instanceof Response) return paged
  return Response.json({
    kind: 'youtube#playlistItemListResponse',
    etag: 'fake',
    ...paged.fields,
    items: paged.items.map((id, i) => {
      const v = fake.videos.get(id)!
      return {
        kind: 'youtube#playlistItem',
        etag: `fake-${id}`,
        id: Buffer.from(`${playlistId}.${id}`).toString('base64url'),
        ...(parts.has('snippet')
          ? {
              snippet: {
                ...videoSnippet(fake, v),
                playlistId,
                position: paged.offset + i,
                resourceId: { kind: 'youtube#video', videoId: id },
                videoOwnerChannelTitle: channel.title,
                videoOwnerChannelId: channel.id,
              },
            }
          : {}),
        ...(parts.has('contentDetails') ? { contentDetails: { videoId: id, videoPublishedAt: iso(v.publishedAt) } } : {}),
      }
    }),
  })
}

export function videosList(fake: FakeYoutube, params: URLSearchParams, parts: Set<string>): Response {
  const ids = params.get('id')
  if (!ids) return apiError(400, 'missingRequiredParameter', 'No filter selected. Expected one of: chart, id, idParam, myRating', 'youtube.parameter')
  const list = ids.split(',')
  if (list.length > MAX_RESULTS) return ERRORS.invalid('id', ids)
  const found = list.map((id) => fake.videos.get(id.trim())).filter((v): v is FakeVideo => !!v)
  return Response.json({
    kind: 'youtube#videoListResponse',
    etag: 'fake',
    items: found.map((v) => ({
      kind: 'youtube#video',
      etag: `fake-${v.id}`,
      id: v.id,
      ...(parts.has('snippet')
        ? {
            snippet: {
              ...videoSnippet(fake, v),
              tags: ['fake'],
              categoryId: String(v.categoryId),
              liveBroadcastContent: v.kind === 'live' || v.kind === 'upcoming' ? v.kind : 'none',
              localized: { title: v.title, description: v.description },
            },
          }
        : {}),
      ...(parts.has('contentDetails')
        ? {
            contentDetails: {
              // on air: P0D, as the API answers for a stream without an end
              duration: v.kind === 'live' || v.kind === 'upcoming' ? 'P0D' : `PT${Math.floor(v.duration / 60) ? `${Math.floor(v.duration / 60)}M` : ''}${v.duration % 60}S`,
              dimension: '2d',
              definition: 'sd',
              caption: 'false',
              licensedContent: false,
              contentRating: {},
              projection: 'rectangular',
            },
          }
        : {}),
    })),
    pageInfo: { totalResults: found.length, resultsPerPage: found.length },
  })
}
