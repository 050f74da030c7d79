import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'

/**
 * One guard for every URL the server fetches on a user's behalf (video,
 * artwork, WebDAV): http(s) only, and no private, loopback, link-local or
 * otherwise internal address after DNS resolution. Redirects are re-checked
 * hop by hop by `guardedFetch`.
 */
export class UrlRefused extends Error {}

const blocked = new BlockList()
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4')
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) blocked.addSubnet(net, prefix, 'ipv6')

export interface AllowList {
  hosts: Set<string>
  nets: BlockList
}

/** Parses FETCH_ALLOW_HOSTS: comma-separated host names, addresses or CIDRs. */
export function parseAllowList(spec: string): AllowList {
  const hosts = new Set<string>()
  const nets = new BlockList()
  for (const raw of spec.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)) {
    const [addr, bits] = raw.split('/')
    const family = isIP(addr)
    if (family && bits) nets.addSubnet(addr, Number(bits), family === 4 ? 'ipv4' : 'ipv6')
    else if (family) nets.addAddress(addr, family === 4 ? 'ipv4' : 'ipv6')
    else hosts.add(raw)
  }
  return { hosts, nets }
}

export const emptyAllowList: AllowList = { hosts: new Set(), nets: new BlockList() }

function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return { address: mapped[1], family: 'ipv4' }
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' }
}

/** True when the address may not be reached (decision level, no traffic). */
export function isBlockedAddress(address: string, allow: AllowList = emptyAllowList): boolean {
  const a = unmapped(address.replace(/^\[|\]$/g, ''))
  if (!isIP(a.address)) return true
  if (allow.nets.check(a.address, a.family)) return false
  return blocked.check(a.address, a.family)
}

type Resolver = (host: string) => Promise<string[]>
const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((r) => r.address)

/** Throws UrlRefused unless `raw` is an http(s) URL whose every resolved address is public or allowed. */
export async function checkUrl(raw: string | URL, allow: AllowList = emptyAllowList, resolve: Resolver = systemResolver): Promise<URL> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new UrlRefused('URL does not parse')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UrlRefused(`scheme ${url.protocol} is not allowed`)
  if (url.username || url.password) {
    // credentials are fine (WebDAV URLs may carry none, but tolerate them)
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (allow.hosts.has(host)) return url
  let addresses: string[]
  if (isIP(host)) addresses = [host]
  else {
    try {
      addresses = await resolve(host)
    } catch {
      throw new UrlRefused(`host ${host} does not resolve`)
    }
  }
  if (addresses.length === 0) throw new UrlRefused(`host ${host} does not resolve`)
  for (const address of addresses) {
    if (isBlockedAddress(address, allow)) throw new UrlRefused(`address ${address} of ${host} is not allowed`)
  }
  return url
}

/** fetch() that checks the URL and every redirect hop with `checkUrl`. */
export async function guardedFetch(
  raw: string | URL,
  init: RequestInit & { allow?: AllowList; maxRedirects?: number } = {},
): Promise<Response> {
  const { allow = emptyAllowList, maxRedirects = 5, ...rest } = init
  let url = await checkUrl(raw, allow)
  for (let hop = 0; ; hop++) {
    const res = await fetch(url, { ...rest, redirect: 'manual' })
    const location = res.headers.get('location')
    if (res.status >= 300 && res.status < 400 && location) {
      if (hop >= maxRedirects) throw new UrlRefused('too many redirects')
      await res.body?.cancel()
      url = await checkUrl(new URL(location, url), allow)
      continue
    }
    return res
  }
}
