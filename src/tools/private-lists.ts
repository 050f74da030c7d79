/**
 * What the admin's cookies for yt-dlp may not be used for by other users
 * (docs/decisions/160-shared-cookies-never-open-private-lists.md): the
 * private lists and feeds of the account the cookies belong to. yt-dlp opens
 * them from a link (`list=WL`, `/feed/history`, the YouTube home page, which
 * is the account's recommendations) or from its `:yt…` feed keywords; every
 * such input is refused for anyone but an admin before yt-dlp runs, and a
 * look-up whose answer turns out to be one (a redirect to it) is not shown.
 */

/** YouTube's own lists of a signed-in account: Watch later, Liked videos, Liked music, history, favourites. */
const PRIVATE_LIST_IDS = new Set(['WL', 'LL', 'LM', 'HL', 'FL', 'WLL'])
/** `RDMM…`: the account's own "My Mix". */
const PRIVATE_LIST_PREFIXES = ['RDMM']

/** Pages of the signed-in account on YouTube and YouTube Music (their subpaths too). */
const PRIVATE_PATHS = /^\/(feed|library|history|account[\w-]*|paid_memberships|notifications|reporthistory|playlists|subscriptions|watch_later|liked)(\/|$)/i

const YOUTUBE_HOST = /(^|\.)(youtube\.com|youtu\.be|youtube-nocookie\.com|youtubekids\.com)$/

/**
 * yt-dlp also reads Invidious and other front-ends' links as YouTube's (with
 * YouTube's cookies), on hosts no list can name: on any host, a private list
 * id and YouTube's own feed paths are refused too.
 */
const FEED_PATHS = /^\/feed\/(history|subscriptions|library|liked|watch_later|notifications|channels|you|playlists|downloads|purchases|storefront|recommended)(\/|$)/i

export const PRIVATE_LIST_REFUSAL =
  "This link opens a private list of the account whose cookies the server uses (Watch later, liked videos, history, subscriptions or a feed); only an administrator may use it. Use a public or unlisted playlist's link instead."

export function isPrivateListId(id: string): boolean {
  const upper = id.trim().toUpperCase()
  return PRIVATE_LIST_IDS.has(upper) || PRIVATE_LIST_PREFIXES.some((p) => upper.startsWith(p))
}

/** True when yt-dlp, given `input`, would open a private list or feed of the cookies' account. */
export function opensPrivateList(input: string): boolean {
  const text = input.trim()
  // `:ytfav`, `:ytwatchlater`, `:ythistory`, `:ytsubs`, `:ytrec`, `:ytnotifications`... and any other `:` keyword
  if (text.startsWith(':')) return true
  const url = URL.parse(text)
  if (!url) return false
  const host = url.hostname.toLowerCase().replace(/\.+$/, '')
  for (const [key, value] of url.searchParams) if (key.toLowerCase() === 'list' && isPrivateListId(value)) return true
  let path = url.pathname
  try {
    path = decodeURIComponent(path)
  } catch {
    // kept as given
  }
  path = path.replace(/\/{2,}/g, '/')
  if (FEED_PATHS.test(path)) return true
  if (!YOUTUBE_HOST.test(host)) return false
  if (PRIVATE_PATHS.test(path)) return true
  // the home page is the account's recommendations (yt-dlp's :ytrec); a watch link on it has `v`
  return (path === '/' || path === '') && !url.searchParams.has('v') && host !== 'youtu.be'
}

/** A yt-dlp answer that is one of those lists (reached through a redirect, say). */
export function isPrivateListInfo(info: Record<string, unknown>): boolean {
  const id = typeof info.id === 'string' ? info.id : ''
  if (info._type === 'playlist' && isPrivateListId(id)) return true
  for (const key of ['webpage_url', 'original_url', 'url']) {
    const value = info[key]
    if (typeof value === 'string' && opensPrivateList(value)) return true
  }
  return false
}
