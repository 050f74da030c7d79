import { connect, createServer, isIP, type Server, type Socket } from 'node:net'
import { log } from './logger.ts'
import { checkTarget, isBlockedAddress, UrlRefused, type AllowList } from './url-guard.ts'

/**
 * A forward HTTP proxy on 127.0.0.1 that applies the URL guard to every
 * request a child process (yt-dlp) makes: the first URL, each redirect, the
 * media and manifest URLs a page points to. `CONNECT host:port` (HTTPS) and
 * absolute-URI requests (plain HTTP) are checked with `checkUrl`, then the
 * connection goes to the very address that was checked (no second DNS
 * lookup that could answer differently). Refused requests get 403.
 *
 * In-process callers (`guardedFetch`) have already checked the URL: they pin
 * the checked address as `Proxy-Authorization: Basic pin:<address>`; the
 * proxy re-judges that address (no DNS) and connects to it, so the name is
 * looked up once per hop.
 *
 * yt-dlp does its own redirects, so without this the guard would see only
 * the first URL.
 */
export interface EgressProxy {
  url: string
  close(): void
}

const MAX_HEAD = 32 * 1024
const IDLE_MS = 60_000

/** A host that does not resolve is said once per this long, not at every refused request. */
const OFFLINE_NOTE_MS = 10 * 60_000
const offlineNoted = new Map<string, number>()

/**
 * A refusal in the log. A name that does not resolve (an offline start: the canary, the
 * runtime checks and the first jobs all ask for www.youtube.com) is one "offline" line per
 * host and ten minutes; any other refusal is logged each time.
 */
export function logRefusal(url: URL, err: unknown, now = Date.now()) {
  const reason = err instanceof Error ? err.message : String(err)
  if (/was not found|cannot reach/.test(reason)) {
    const last = offlineNoted.get(url.hostname)
    if (last !== undefined && now - last < OFFLINE_NOTE_MS) return
    offlineNoted.set(url.hostname, now)
    log.warn('offline: this server cannot resolve a host it needs; requests to it fail until it can (said again in 10 minutes)', { host: url.hostname })
    return
  }
  log.warn('egress refused', { url: url.origin, reason })
}

const proxies = new WeakMap<AllowList, Promise<EgressProxy>>()

/** One proxy per allow-list, started on first use and kept for the process (unref'd). */
export function egressProxy(allow: AllowList): Promise<EgressProxy> {
  let proxy = proxies.get(allow)
  if (!proxy) {
    proxy = startEgressProxy(allow)
    proxies.set(allow, proxy)
  }
  return proxy
}

export async function startEgressProxy(allow: AllowList): Promise<EgressProxy> {
  const server: Server = createServer((client) => void handle(client, allow))
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  server.unref()
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() }
}

/** Checks `url` (or the pinned address); answers the address to connect to, or throws UrlRefused. */
async function checkedTarget(url: URL, allow: AllowList, pinned: string | undefined): Promise<{ host: string; port: number }> {
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80)
  if (pinned !== undefined) {
    if (!isIP(pinned) || isBlockedAddress(pinned, allow)) throw new UrlRefused('pinned address is not allowed')
    return { host: pinned, port }
  }
  const { address } = await checkTarget(url, allow)
  return { host: address ?? url.hostname.replace(/^\[|\]$/g, ''), port }
}

/** The address from `Proxy-Authorization: Basic base64("pin:<address>")`, if any. */
function pinnedAddress(headerLines: string[]): string | undefined {
  const line = headerLines.find((l) => /^proxy-authorization\s*:/i.test(l))
  const m = line && /:\s*basic\s+([a-z0-9+/=]+)\s*$/i.exec(line)
  if (!m) return undefined
  const text = Buffer.from(m[1]!, 'base64').toString('latin1')
  return text.startsWith('pin:') ? text.slice(4) : undefined
}

async function handle(client: Socket, allow: AllowList) {
  client.setTimeout(IDLE_MS, () => client.destroy())
  client.on('error', () => {})
  let head = Buffer.alloc(0)
  let end = -1
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk])
    end = head.indexOf('\r\n\r\n')
    if (end >= 0 || head.length > MAX_HEAD) {
      client.off('data', onData)
      client.pause()
      void route()
    }
  }
  client.on('data', onData)

  const refuse = (status: number, reason: string) => {
    const body = `${reason}\n`
    client.end(
      `HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Bad Request'}\r\nX-Egress-Refused: 1\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
  }

  async function route() {
    if (end < 0) return refuse(400, 'request head too large')
    const text = head.subarray(0, end).toString('latin1')
    const rest = head.subarray(end + 4)
    const [requestLine = '', ...headerLines] = text.split('\r\n')
    const [method = '', target = '', version = 'HTTP/1.1'] = requestLine.split(' ')
    let url: URL
    try {
      url = method === 'CONNECT' ? new URL(`https://${target}/`) : new URL(target)
    } catch {
      return refuse(400, 'bad request target')
    }
    let dest: { host: string; port: number }
    try {
      dest = await checkedTarget(url, allow, pinnedAddress(headerLines))
    } catch (err) {
      logRefusal(url, err)
      return refuse(403, `refused: ${err instanceof Error ? err.message : 'not allowed'}`)
    }
    const upstream = connect({ host: dest.host, port: dest.port })
    upstream.setTimeout(IDLE_MS, () => upstream.destroy())
    upstream.on('error', () => client.destroy())
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
    upstream.once('connect', () => {
      if (method === 'CONNECT') {
        client.write(`${version} 200 Connection Established\r\n\r\n`)
      } else {
        // origin-form request line, hop-by-hop proxy headers dropped, one request per connection
        const kept = headerLines.filter((l) => !/^(proxy-connection|proxy-authorization|connection|keep-alive)\s*:/i.test(l))
        const path = `${url.pathname}${url.search}`
        upstream.write(`${method} ${path} ${version}\r\n${[...kept, 'Connection: close'].join('\r\n')}\r\n\r\n`)
      }
      if (rest.length) upstream.write(rest)
      client.pipe(upstream)
      upstream.pipe(client)
      client.resume()
    })
  }
}
