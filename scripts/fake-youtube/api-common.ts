// What every API endpoint group of the fake shares: limits, dates, errors and paging.
export const MAX_RESULTS = 50

export const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z')

/** Error bodies exactly as the Data API sends them. */
export function apiError(code: number, reason: string, message: string, domain = 'youtube.api') {
  return Response.json({ error: { code, message, errors: [{ message, domain, reason }] } }, { status: code })
}

export const ERRORS = {
  quotaExceeded: () =>
    apiError(
      403,
      'quotaExceeded',
      'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
      'youtube.quota',
    ),
  missingKey: () =>
    apiError(403, 'forbidden', 'Method doesn\'t allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.', 'global'),
  badKey: () => apiError(400, 'keyInvalid', 'API key not valid. Please pass a valid API key.', 'global'),
  backend: (status: number) => apiError(status, 'backendError', 'The service is currently unavailable.', 'global'),
  required: (name: string) => apiError(400, 'required', `Required parameter: ${name}`, 'global'),
  invalid: (name: string, value: string) => apiError(400, 'invalidParameter', `Invalid value for parameter ${name}: '${value}'.`, 'global'),
  pageToken: () => apiError(400, 'invalidPageToken', "The request specifies an invalid page token.", 'youtube.parameter'),
  playlistNotFound: () =>
    apiError(404, 'playlistNotFound', "The playlist identified with the request's <code>playlistId</code> parameter cannot be found.", 'youtube.playlistItem'),
  subscriberNotFound: () => apiError(404, 'subscriberNotFound', 'The subscriber identified with the request cannot be found.', 'youtube.subscription'),
  subscriptionForbidden: () =>
    apiError(403, 'subscriptionForbidden', 'The requester is not allowed to access the requested subscriptions.', 'youtube.subscription'),
  notFound: () => apiError(404, 'notFound', 'Not Found', 'global'),
}

/**
 * One page of `list` by `maxResults` and `pageToken`: its items, their offset,
 * and the list response's paging fields (tokens and pageInfo); or an error.
 */
export function page<T>(list: T[], params: URLSearchParams, key: string): Response | { items: T[]; offset: number; fields: object } {
  const max = params.get('maxResults') ?? '5'
  const size = Number(max)
  if (!/^\d+$/.test(max) || size > MAX_RESULTS) return ERRORS.invalid('maxResults', max)
  let offset = 0
  const token = params.get('pageToken')
  if (token) {
    try {
      const parsed = JSON.parse(Buffer.from(token, 'base64url').toString()) as { k: string; o: number }
      if (parsed.k !== key || !Number.isInteger(parsed.o) || parsed.o < 0) return ERRORS.pageToken()
      offset = parsed.o
    } catch {
      return ERRORS.pageToken()
    }
  }
  const encode = (o: number) => Buffer.from(JSON.stringify({ k: key, o })).toString('base64url')
  const items = list.slice(offset, offset + size)
  return {
    items,
    offset,
    fields: {
      ...(offset + size < list.length ? { nextPageToken: encode(offset + size) } : {}),
      ...(offset > 0 ? { prevPageToken: encode(Math.max(0, offset - size)) } : {}),
      pageInfo: { totalResults: list.length, resultsPerPage: size },
    },
  }
}
