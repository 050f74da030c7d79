import { isIP } from 'node:net'
import { isBlockedAddress, systemResolver, type Resolver } from '../../lib/url-guard.ts'

/**
 * Whether the hub could reach PUBLIC_URL: its host is not `localhost`, a loopback, private or
 * link-local address, nor a name resolving only to such (the same ranges the URL guard refuses).
 * A name that does not resolve here is taken as not public: subscribing would only fail.
 */
export async function isPublicUrl(raw: string | undefined, resolve: Resolver = systemResolver): Promise<boolean> {
  if (!raw) return false
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return false
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '')
  if (host === 'localhost' || host.endsWith('.localhost')) return false
  if (isIP(host)) return !isBlockedAddress(host)
  let addresses: string[]
  try {
    addresses = await resolve(host)
  } catch {
    return false
  }
  return addresses.some((a) => !isBlockedAddress(a))
}

/** WebSub is on when PUBLIC_URL is public, or (tests only) WEBSUB_ALLOW_PRIVATE_CALLBACK lets a private one through. */
export async function websubEnabled(
  env: { PUBLIC_URL?: string; WEBSUB_ALLOW_PRIVATE_CALLBACK: boolean },
  resolve: Resolver = systemResolver,
): Promise<boolean> {
  if (!env.PUBLIC_URL) return false
  if (env.WEBSUB_ALLOW_PRIVATE_CALLBACK) return true
  return isPublicUrl(env.PUBLIC_URL, resolve)
}
