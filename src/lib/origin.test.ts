import { describe, expect, test } from 'bun:test'
import { isOwnOrigin, listenOrigin, mailOrigin, publicOrigin, requestHost, requestProtocol } from './origin.ts'

const req = (url: string, headers: Record<string, string> = {}) => {
  const h = new Headers(headers)
  return { url, header: (name: string) => h.get(name) ?? undefined }
}

describe('origin', () => {
  test('behind a chain of proxies, the first of comma-separated X-Forwarded-* values is the client-facing one', () => {
    const r = req('http://10.0.0.5:3000/api/x', {
      host: '10.0.0.5:3000',
      'x-forwarded-proto': 'https, http',
      'x-forwarded-host': 'tunes.example.net, edge.internal',
    })
    expect(requestProtocol(r, true)).toBe('https')
    expect(requestHost(r, true)).toBe('tunes.example.net')
    expect(publicOrigin(r, { TRUST_PROXY: true })).toBe('https://tunes.example.net')
    expect(isOwnOrigin('https://tunes.example.net', r, true)).toBe(true)
    expect(isOwnOrigin('https://edge.internal', r, true)).toBe(false)
  })

  test('forwarded headers count only with TRUST_PROXY', () => {
    const r = req('http://127.0.0.1:3000/', { host: '127.0.0.1:3000', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' })
    expect(requestProtocol(r, false)).toBe('http')
    expect(requestHost(r, false)).toBe('127.0.0.1:3000')
    expect(publicOrigin(r, { TRUST_PROXY: false })).toBe('http://127.0.0.1:3000')
    expect(isOwnOrigin('http://evil.example', r, false)).toBe(false)
    expect(isOwnOrigin('http://127.0.0.1:3000', r, false)).toBe(true)
  })

  test('PUBLIC_URL wins, without its trailing slash; a malformed Origin is not ours', () => {
    const r = req('http://127.0.0.1:3000/', { 'x-forwarded-host': 'proxy.example' })
    expect(publicOrigin(r, { PUBLIC_URL: 'https://music.example.org/', TRUST_PROXY: true })).toBe('https://music.example.org')
    expect(requestHost(r, false)).toBe('127.0.0.1:3000')
    expect(isOwnOrigin('not a url', r, false)).toBe(false)
  })

  test('mail links: PUBLIC_URL, else the listening address (localhost for a wildcard), with the port', () => {
    const env = { HOST: '0.0.0.0', PORT: 3000 }
    expect(mailOrigin(undefined, { ...env, PUBLIC_URL: 'https://music.example.org/' })).toBe('https://music.example.org')
    expect(mailOrigin(undefined, env)).toBe('http://localhost:3000')
    expect(mailOrigin({ hostname: '0.0.0.0', port: 41234 }, env)).toBe('http://localhost:41234')
    expect(mailOrigin({ hostname: '127.0.0.1', port: 41234 }, env)).toBe('http://127.0.0.1:41234')
    expect(mailOrigin({ hostname: '::', port: 8080 }, env)).toBe('http://localhost:8080')
    expect(listenOrigin({ hostname: '::1', port: 8080 }, env)).toBe('http://[::1]:8080')
    expect(listenOrigin({ hostname: '192.168.1.20', port: 80 }, env)).toBe('http://192.168.1.20')
    // PORT=0 before the server listens: the real port comes from the server object
    expect(listenOrigin({ hostname: 'localhost', port: 0 }, { HOST: 'localhost', PORT: 3000 })).toBe('http://localhost:3000')
  })
})
