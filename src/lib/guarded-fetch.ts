import { egressProxy } from './egress-proxy.ts'
import { checkTarget, emptyAllowList, systemResolver, UrlRefused, type AllowList, type Resolver } from './url-guard.ts'

export interface GuardedInit extends RequestInit {
  allow?: AllowList
  maxRedirects?: number
  /** Name resolution (tests answer differently on each call to play DNS rebinding). */
  resolve?: Resolver
}

/**
 * fetch() for URLs a user gave: each hop (the URL, then every redirect) is
 * checked with the URL guard, and the connection goes to the very address
 * that was checked, through the egress proxy with that address pinned. A
 * name that answers a public address to the check and a loopback one later
 * (DNS rebinding) is never looked up a second time.
 */
export async function guardedFetch(raw: string | URL, init: GuardedInit = {}): Promise<Response> {
  const { allow = emptyAllowList, maxRedirects = 5, resolve = systemResolver, ...rest } = init
  const proxy = await egressProxy(allow)
  let target = await checkTarget(raw, allow, resolve)
  for (let hop = 0; ; hop++) {
    const via = new URL(proxy.url)
    if (target.address) [via.username, via.password] = ['pin', encodeURIComponent(target.address)]
    let res: Response
    try {
      // keepalive off: the proxy serves one request per connection, and a pooled connection it
      // already closed made the next guarded request fail with ECONNRESET
      res = await fetch(target.url, { ...rest, redirect: 'manual', proxy: via.toString(), keepalive: false })
    } catch (err) {
      // a tunnel the proxy refused (HTTPS); plain HTTP refusals come back as 403 below
      if ((err as { code?: string }).code === 'ERR_PROXY_TUNNEL') throw new UrlRefused('the link could not be reached safely')
      throw err
    }
    if (res.status === 403 && res.headers.get('x-egress-refused')) {
      await res.body?.cancel()
      throw new UrlRefused('the link could not be reached safely')
    }
    const location = res.headers.get('location')
    if (res.status >= 300 && res.status < 400 && location) {
      if (hop >= maxRedirects) throw new UrlRefused('the link redirects too many times')
      await res.body?.cancel()
      target = await checkTarget(new URL(location, target.url), allow, resolve)
      continue
    }
    return res
  }
}
