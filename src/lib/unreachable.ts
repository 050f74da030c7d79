/**
 * One sentence for one cause (issue 37, minor 3): this server has no route to YouTube (its name
 * does not resolve, or the connection is refused or cut). Said the same way by the music link
 * check, the subscriptions and listen mode and podcasts, instead of "check the link for typos",
 * "try again later" or "the site could not be reached": retrying does not help until it can.
 */
export const YOUTUBE_HOST = 'www.youtube.com'
export const YOUTUBE_UNREACHABLE = `This server cannot reach ${YOUTUBE_HOST} (DNS or network). Check its internet connection, DNS, proxy and firewall; trying again will not help until it can.`

/** YouTube's own host names: a pasted link to one of them that does not resolve means no route to YouTube. */
export const isYoutubeHost = (host: string) => /(^|\.)(youtube\.com|youtu\.be|youtube-nocookie\.com)$/i.test(host)

/**
 * A tool's or fetch's words for "no route": the name did not resolve, the connection (or the
 * proxy's tunnel, as the egress proxy refuses an unresolvable host) failed. Not an HTTP 5xx:
 * YouTube answered, so "try again later" stays right for that.
 */
export const NO_ROUTE =
  /name resolution|Failed to resolve|Name or service not known|nodename nor servname|getaddrinfo|ENOTFOUND|Network is unreachable|No route to host|Connection refused|ConnectionRefused|Unable to connect|FailedToOpenSocket|Tunnel connection failed|Unable to connect to proxy|was not found|cannot reach/i

/** Whether an error thrown by fetch (not an HTTP answer) says there is no route. */
export function isNoRoute(err: unknown): boolean {
  if (!(err instanceof Error) || err.name === 'AbortError' || err.name === 'TimeoutError') return false
  const code = (err as { code?: unknown }).code
  return NO_ROUTE.test(`${err.message} ${typeof code === 'string' ? code : ''}`)
}
