import { guardedFetch } from '../lib/guarded-fetch.ts'
import { type AllowList, UrlRefused } from '../lib/url-guard.ts'
import type { WebdavAccount, WebdavProblem } from './schema.ts'

/**
 * PROPFIND depth 0 on the account's URL with its credentials: null when the server answers 207,
 * else why not (the save answers 400 with it in `x-error-kind`, decision 180).
 */
export async function webdavProblem(account: WebdavAccount, allow: AllowList, timeoutMs = 10_000): Promise<WebdavProblem | null> {
  try {
    const res = await guardedFetch(account.url, {
      method: 'PROPFIND',
      headers: {
        Depth: '0',
        Authorization: `Basic ${Buffer.from(`${account.username}:${account.password}`).toString('base64')}`,
        'Content-Type': 'application/xml; charset=utf-8',
      },
      body: '<?xml version="1.0" encoding="utf-8"?><propfind xmlns="DAV:"><prop><resourcetype/></prop></propfind>',
      signal: AbortSignal.timeout(timeoutMs),
      allow,
      maxRedirects: 0,
    })
    await res.body?.cancel()
    if (res.status === 207) return null
    if (res.status === 401 || res.status === 403) return 'sign_in_refused'
    if (res.status === 404 || res.status === 410) return 'not_found'
    return 'not_webdav'
  } catch (err) {
    if (err instanceof DOMException && (err.name === 'TimeoutError' || err.name === 'AbortError')) return 'timeout'
    if (err instanceof UrlRefused) {
      if (/redirects/.test(err.message)) return 'redirected'
      if (/was not found/.test(err.message)) return 'unreachable'
      return 'refused_address'
    }
    return 'unreachable'
  }
}
