/**
 * Fetching what the app downloads and then runs (the managed yt-dlp, the
 * managed Deno, the PO-token provider's plugin): HTTPS only (plain HTTP only
 * to a loopback address, which is what the tests' release stand-ins are),
 * redirects followed only to the release host itself or to hosts named for
 * it (GitHub's download hosts for a github.com release), and a size ceiling
 * checked before and while reading. Any refusal is a ReleaseRefused whose
 * message says what was refused, in words fit for `tools.*.lastError`.
 */
export class ReleaseRefused extends Error {
  override name = 'ReleaseRefused'
}

/** Hosts a github.com release download redirects to (release assets, objects). */
export const GITHUB_DOWNLOAD_HOSTS = ['github.com', 'objects.githubusercontent.com', 'release-assets.githubusercontent.com', 'github-releases.githubusercontent.com']

const MAX_REDIRECTS = 5

/** True for a URL whose host is a loopback address or `localhost`. */
export function isLoopbackUrl(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

/** The hosts a download from `releaseUrl` may be redirected to: its own, plus GitHub's download hosts for github.com. */
export function allowedReleaseHosts(releaseUrl: string): Set<string> {
  const host = new URL(releaseUrl).hostname.toLowerCase()
  const hosts = new Set([host])
  if (host === 'github.com' || host.endsWith('.github.com')) for (const h of GITHUB_DOWNLOAD_HOSTS) hosts.add(h)
  return hosts
}

/** Refuses a URL that is not HTTPS (loopback excepted) or not on an allowed host. */
export function checkReleaseUrl(raw: string | URL, hosts: Set<string>): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ReleaseRefused(`not a URL: ${String(raw)}`)
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackUrl(url))) {
    throw new ReleaseRefused(`${url.origin} is not HTTPS: release downloads must use HTTPS`)
  }
  if (!hosts.has(url.hostname.toLowerCase())) throw new ReleaseRefused(`redirected to ${url.hostname}, which is not a download host of the release`)
  return url
}

/**
 * GETs `url` (a release asset) and returns its bytes, refusing plain HTTP,
 * redirects off the release's hosts and anything over `max` bytes.
 * `releaseUrl` names the release (its host decides the allowed hosts).
 */
export async function fetchRelease(
  url: string,
  opts: { releaseUrl: string; max: number; timeoutMs?: number; signal?: AbortSignal },
): Promise<Uint8Array> {
  const hosts = allowedReleaseHosts(opts.releaseUrl)
  const signal = opts.signal ?? AbortSignal.timeout(opts.timeoutMs ?? 5 * 60 * 1000)
  let target = checkReleaseUrl(url, hosts)
  for (let hop = 0; ; hop++) {
    const res = await fetch(target, { signal, redirect: 'manual' })
    const location = res.headers.get('location')
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel()
      if (hop >= MAX_REDIRECTS) throw new ReleaseRefused(`${url}: too many redirects`)
      target = checkReleaseUrl(new URL(location, target), hosts)
      continue
    }
    if (!res.ok) {
      await res.body?.cancel()
      throw new ReleaseRefused(`${target.href}: HTTP ${res.status}`)
    }
    const length = Number(res.headers.get('content-length') ?? 0)
    if (length > opts.max) {
      await res.body?.cancel()
      throw new ReleaseRefused(`${target.href}: ${length} bytes is more than ${opts.max}`)
    }
    const chunks: Uint8Array[] = []
    let total = 0
    for await (const chunk of res.body ?? []) {
      total += chunk.byteLength
      if (total > opts.max) throw new ReleaseRefused(`${target.href}: more than ${opts.max} bytes`)
      chunks.push(chunk)
    }
    const bytes = new Uint8Array(total)
    let at = 0
    for (const chunk of chunks) {
      bytes.set(chunk, at)
      at += chunk.byteLength
    }
    return bytes
  }
}
