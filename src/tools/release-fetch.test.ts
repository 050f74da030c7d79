import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { allowedReleaseHosts, checkReleaseUrl, fetchRelease, isLoopbackUrl, ReleaseRefused } from './release-fetch.ts'

// fetchRelease against a release stand-in on 127.0.0.1; addresses off loopback only at the
// decision level (checkReleaseUrl, and fetchRelease refusing before any request).
let server: ReturnType<typeof Bun.serve>
let base: string
const hits: string[] = []

beforeAll(() => {
  server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const url = new URL(req.url)
      hits.push(url.pathname)
      switch (url.pathname) {
        case '/asset':
          return new Response('build bytes')
        case '/hop':
          return new Response(null, { status: 302, headers: { location: '/asset' } })
        case '/loop':
          return new Response(null, { status: 302, headers: { location: '/loop' } })
        case '/elsewhere':
          return new Response(null, { status: 302, headers: { location: `http://localhost:${url.port}/asset` } })
        case '/off-loopback':
          return new Response(null, { status: 301, headers: { location: 'http://downloads.example.com/asset' } })
        case '/big':
          return new Response('x'.repeat(2048))
        case '/big-streamed':
          return new Response(new ReadableStream({ start(c) { for (let i = 0; i < 4; i++) c.enqueue(new Uint8Array(1024)); c.close() } }))
        default:
          return new Response('not found', { status: 404 })
      }
    },
  })
  base = `http://127.0.0.1:${server.port}`
})
afterAll(() => server?.stop(true))

const get = (path: string, max = 1024 * 1024) => fetchRelease(`${base}${path}`, { releaseUrl: base, max, timeoutMs: 30_000 })
const refusal = async (p: Promise<unknown>) => {
  const err = await p.then(() => null, (e: unknown) => e)
  expect(err).toBeInstanceOf(ReleaseRefused)
  return (err as Error).message
}

describe('fetchRelease', () => {
  test('plain HTTP on loopback is fetched; a redirect on the release host is followed', async () => {
    expect(new TextDecoder().decode(await get('/asset'))).toBe('build bytes')
    expect(new TextDecoder().decode(await get('/hop'))).toBe('build bytes')
  })

  test('a redirect to another host is refused, and that host gets no request', async () => {
    const before = hits.length
    expect(await refusal(get('/elsewhere'))).toBe('redirected to localhost, which is not a download host of the release')
    expect(hits.slice(before)).toEqual(['/elsewhere'])
  })

  test('a redirect to plain HTTP off loopback is refused', async () => {
    expect(await refusal(get('/off-loopback'))).toBe('http://downloads.example.com is not HTTPS: release downloads must use HTTPS')
  })

  test('too many redirects, an error status and too many bytes (announced or streamed) are refused', async () => {
    expect(await refusal(get('/loop'))).toMatch(/too many redirects$/)
    expect(await refusal(get('/missing'))).toBe(`${base}/missing: HTTP 404`)
    expect(await refusal(get('/big', 1024))).toBe(`${base}/big: 2048 bytes is more than 1024`)
    expect(await refusal(get('/big-streamed', 1024))).toBe(`${base}/big-streamed: more than 1024 bytes`)
  })

  test('plain HTTP to a host that is not loopback: refused before any request', async () => {
    const message = await refusal(fetchRelease('http://downloads.example.com/yt-dlp/SHA2-256SUMS', { releaseUrl: 'http://downloads.example.com/yt-dlp', max: 1024 }))
    expect(message).toBe('http://downloads.example.com is not HTTPS: release downloads must use HTTPS')
  })
})

describe('the decision', () => {
  test('HTTPS anywhere on the release hosts; HTTP only on loopback', () => {
    const hosts = allowedReleaseHosts('https://github.com/yt-dlp/yt-dlp/releases/latest/download')
    expect(checkReleaseUrl('https://github.com/yt-dlp/yt-dlp/releases/download/x/yt-dlp', hosts).hostname).toBe('github.com')
    expect(checkReleaseUrl('https://release-assets.githubusercontent.com/x', hosts).hostname).toBe('release-assets.githubusercontent.com')
    expect(checkReleaseUrl('https://objects.githubusercontent.com/x', hosts).hostname).toBe('objects.githubusercontent.com')
    expect(() => checkReleaseUrl('http://github.com/yt-dlp/yt-dlp/releases/download/x/yt-dlp', hosts)).toThrow('http://github.com is not HTTPS: release downloads must use HTTPS')
    expect(() => checkReleaseUrl('https://evil.example/yt-dlp', hosts)).toThrow('redirected to evil.example, which is not a download host of the release')
    expect(() => checkReleaseUrl('https://github.com.evil.example/yt-dlp', hosts)).toThrow(ReleaseRefused)
    expect(() => checkReleaseUrl('not a url', hosts)).toThrow('not a URL: not a url')
    // another host gets no GitHub download hosts
    expect([...allowedReleaseHosts('https://downloads.example.com/yt-dlp')]).toEqual(['downloads.example.com'])
  })

  test('loopback: 127.0.0.0/8, ::1 and localhost only', () => {
    for (const u of ['http://127.0.0.1:8080/', 'http://127.1.2.3/', 'http://[::1]:9/', 'http://localhost/']) expect(isLoopbackUrl(new URL(u))).toBe(true)
    for (const u of ['http://10.0.0.1/', 'http://127.0.0.1.example.com/', 'http://[::2]/', 'http://0.0.0.0/']) expect(isLoopbackUrl(new URL(u))).toBe(false)
  })
})
