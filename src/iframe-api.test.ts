import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../tests/support/app.ts'

// YOUTUBE_IFRAME_API_URL reaches the page through /iframe_api, and the page's
// Content-Security-Policy lets its origin serve scripts and frames.
let t: TestApp
let byDefault: TestApp
const STAND_IN = 'http://127.0.0.1:4567/iframe_api'

beforeAll(async () => {
  ;[t, byDefault] = await Promise.all([createTestApp({ env: { YOUTUBE_IFRAME_API_URL: STAND_IN } }), createTestApp()])
}, 60_000)
afterAll(async () => {
  await Promise.all([t.close(), byDefault.close()])
})

const policy = (res: Response) =>
  Object.fromEntries(
    (res.headers.get('content-security-policy') ?? '').split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/)
      return [name, values]
    }),
  ) as Record<string, string[]>

describe('the IFrame Player API URL', () => {
  test('/iframe_api redirects to the configured script; the default is YouTube', async () => {
    const res = await t.app.request('/iframe_api')
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(STAND_IN)
    expect((await byDefault.app.request('/iframe_api')).headers.get('location')).toBe('https://www.youtube.com/iframe_api')
  })

  test('the page policy follows it: script-src and frame-src name its origin, and only it', async () => {
    const csp = policy(await t.app.request('/iframe_api'))
    expect(csp['script-src']).toContain('http://127.0.0.1:4567')
    expect(csp['frame-src']).toContain('http://127.0.0.1:4567')
    const plain = policy(await byDefault.app.request('/iframe_api'))
    expect(plain['script-src']).toEqual(["'self'", 'https://www.youtube.com', 'https://s.ytimg.com'])
    expect(plain['frame-src']).toEqual(['https://www.youtube.com', 'https://www.youtube-nocookie.com'])
  })
})
