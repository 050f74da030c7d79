import { guardedFetch } from '../lib/guarded-fetch.ts'
import type { AllowList } from '../lib/url-guard.ts'
import type { WebdavAccount } from './schema.ts'

/** PROPFIND depth 0 on the account's URL with its credentials: true when the server answers 207. */
export async function checkWebdav(account: WebdavAccount, allow: AllowList, timeoutMs = 10_000): Promise<boolean> {
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
    return res.status === 207
  } catch {
    return false
  }
}
