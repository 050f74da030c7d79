import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'
import { isYoutubeHost, YOUTUBE_UNREACHABLE } from './unreachable.ts'

/**
 * One guard for every URL the server fetches on a user's behalf (video,
 * artwork, WebDAV): http(s) only, and no private, loopback, link-local or
 * otherwise internal address after DNS resolution. Fetching (connect to the
 * checked address, re-check each redirect hop) is `guardedFetch` in
 * guarded-fetch.ts. Refusal messages are sentences for the user: they name
 * the host the user gave, never an address DNS answered.
 */
export class UrlRefused extends Error {}

/** Refusals are clauses after `field: `; the web capitalises their first letter again. */
const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1)

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
  ['::', 96], // unspecified, loopback and IPv4-compatible (::a.b.c.d)
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT)
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48], // local-use NAT64
  ['2002::', 16], // 6to4: embeds any IPv4 address
  ['fec0::', 10], // deprecated site-local
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

/** `::ffff:a.b.c.d` in any spelling (`::ffff:7f00:1`, `0:0:0:0:0:ffff:...`) is judged as the IPv4 address. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  if (isIP(address) !== 6) return { address, family: 'ipv4' }
  const words = ipv6Words(address)
  if (words && words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff) {
    const [hi, lo] = [words[6]!, words[7]!]
    return { address: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, family: 'ipv4' }
  }
  return { address, family: 'ipv6' }
}

/** The eight 16-bit words of a valid IPv6 address (dotted tail included). */
function ipv6Words(address: string): number[] | undefined {
  let text = address.replace(/%.*$/, '')
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.split('::') as [string, string | undefined]
  const part = (s: string) => (s ? s.split(':').map((w) => parseInt(w, 16)) : [])
  const h = part(head)
  const t = tail === undefined ? [] : part(tail)
  const fill = tail === undefined ? 0 : 8 - h.length - t.length
  const words = [...h, ...Array<number>(fill).fill(0), ...t]
  return words.length === 8 && words.every((w) => Number.isInteger(w)) ? words : undefined
}

/** True when the address may not be reached (decision level, no traffic). */
export function isBlockedAddress(address: string, allow: AllowList = emptyAllowList): boolean {
  const a = unmapped(address.replace(/^\[|\]$/g, ''))
  if (!isIP(a.address)) return true
  if (allow.nets.check(a.address, a.family)) return false
  return blocked.check(a.address, a.family)
}

export type Resolver = (host: string) => Promise<string[]>
export const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((r) => r.address)

/** Throws UrlRefused unless `raw` is an http(s) URL whose every resolved address is public or allowed. */
export async function checkUrl(raw: string | URL, allow: AllowList = emptyAllowList, resolve: Resolver = systemResolver): Promise<URL> {
  return (await checkTarget(raw, allow, resolve)).url
}

/**
 * `checkUrl` that also answers the checked address to connect to
 * (undefined for an allow-listed host name, which is trusted by name).
 */
export async function checkTarget(
  raw: string | URL,
  allow: AllowList = emptyAllowList,
  resolve: Resolver = systemResolver,
): Promise<{ url: URL; address?: string }> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new UrlRefused('the link is not a valid web address; paste a full http(s) link')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UrlRefused('only http and https links can be used')
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (allow.hosts.has(host)) return { url }
  let addresses: string[]
  if (isIP(host)) addresses = [host]
  else {
    try {
      addresses = await resolve(host)
    } catch {
      addresses = []
    }
  }
  if (addresses.length === 0) {
    // YouTube's own name not found: this server has no route to it, the link is fine
    if (isYoutubeHost(host)) throw new UrlRefused(lowerFirst(YOUTUBE_UNREACHABLE))
    throw new UrlRefused(`the host ${host} was not found; check the link for typos`)
  }
  // the message names the host the user gave, never the addresses DNS answered
  if (addresses.some((a) => isBlockedAddress(a, allow))) throw new UrlRefused(internalRefusal)
  return { url, address: addresses[0] }
}

const internalRefusal =
  'the link points to a private or local network address, which Tunefeed does not fetch; use a public link (an administrator can allow a host with FETCH_ALLOW_HOSTS)'
