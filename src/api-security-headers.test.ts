import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { Client, createTestApp, signUp, type TestApp } from '../tests/support/app.ts'
import { expectError } from '../tests/support/http.ts'
import { sessionCache } from './auth/session-cache.ts'
import { sessionToken } from './auth/session.ts'
import { hashToken } from './auth/tokens.ts'

// Every /api answer carries the API's fixed security headers (src/app.ts, the edge; docs/decisions/006),
// whichever way the session check went (cached without a promise, from the database, a Bearer token,
// no credentials) and whatever the answer: 200, 401, 403, 404, 400, 413.
setDefaultTimeout(30_000)

const EXPECTED: Record<string, string> = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
}

let t: TestApp
let alice: Client
beforeAll(async () => {
  t = await createTestApp({ env: { MAX_JSON_BYTES: '2048' } })
  ;({ client: alice } = await signUp(t))
})
afterAll(() => t.close())

function expectApiHeaders(res: Response, status: number) {
  expect(res.status).toBe(status)
  const got = Object.fromEntries(Object.keys(EXPECTED).map((name) => [name, res.headers.get(name)]))
  expect(got).toEqual(EXPECTED)
}

test('signed in: from the database, then from the session cache (no promise), GET and HEAD', async () => {
  sessionCache(t.ctx.db).clear()
  expectApiHeaders(await alice.get('/api/auth/session'), 200)
  expect(sessionCache(t.ctx.db).get(hashToken(sessionToken(alice.cookie)!))).toBeDefined()
  expectApiHeaders(await alice.get('/api/auth/session'), 200)
  expectApiHeaders(await alice.request('/api/auth/session', { method: 'HEAD' }), 200)
})

test('401 for no cookie, an unknown cookie and an unknown Bearer token', async () => {
  expectApiHeaders(await new Client(t).get('/api/auth/session'), 401)
  const stranger = new Client(t)
  stranger.cookie = 'tunefeed_session=not-a-session'
  const res = await stranger.get('/api/auth/session')
  expectApiHeaders(res, 401)
  await expectError(res, 401, 'Unauthorized')
  expectApiHeaders(await new Client(t).request('/api/auth/session', { headers: { authorization: 'Bearer tf_nope' } }), 401)
})

test('errors on the write path and elsewhere: 403 cross-site, 400 bad JSON, 413 too large, 404 unknown route', async () => {
  const crossSite = await alice.request('/api/auth/login', {
    method: 'POST',
    headers: { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
    json: { email: 'a@example.com', password: 'x' },
  })
  expectApiHeaders(crossSite, 403)
  expectApiHeaders(await alice.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }), 400)
  expectApiHeaders(await alice.post('/api/auth/login', { email: 'x'.repeat(4096), password: 'y' }), 413)
  expectApiHeaders(await alice.request('/api/no-such-route'), 404)
  expectApiHeaders(await new Client(t).request('/api/no-such-route'), 404)
})
