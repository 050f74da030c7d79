import { describe, expect, test } from 'bun:test'
import { isOwnOrigin, publicOrigin, requestHost, requestProtocol } from './origin.ts'

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
})
