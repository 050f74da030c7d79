import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { Client, createTestApp, signUp, type TestApp } from '../tests/support/app.ts'
import { expectError } from '../tests/support/http.ts'
import { startAcceptingDav } from '../tests/support/webdav.ts'

// bun's default is 5 s per test; password hashing and databases need more on a busy machine
setDefaultTimeout(30_000)

// Bad input on every route: always a 4xx with a JSON {detail}, never a 500.
// MAX_JSON_BYTES is small here so the 413 cases stay cheap.

let t: TestApp
let client: Client
let accepting: ReturnType<typeof startAcceptingDav>
beforeAll(async () => {
  t = await createTestApp({ env: { MAX_JSON_BYTES: '2048', FETCH_ALLOW_HOSTS: '127.0.0.1' } })
  client = (await signUp(t)).client
  // a "WebDAV server" that accepts any credentials, so input reaches the database
  accepting = startAcceptingDav()
})
afterAll(async () => {
  accepting.stop()
  await t.close()
})

const JSON_ROUTES = [
  { path: '/api/auth/create', valid: () => ({ email: `x-${crypto.randomUUID().slice(0, 6)}@example.com`, password: 'password123' }) },
  { path: '/api/auth/login', valid: () => ({ email: 'nobody@example.com', password: 'password123' }) },
  { path: '/api/auth/sendreset', valid: () => ({ email: 'nobody@example.com' }) },
  { path: '/api/auth/reset', valid: () => ({ token: 'ABCDEFGH', password: 'password123' }) },
  { path: '/api/webdav', valid: () => ({ username: 'u', password: 'p', url: `http://127.0.0.1:${accepting.port}/` }) },
] as const

const raw = (path: string, body: BodyInit | null, contentType?: string, extra: RequestInit = {}) =>
  client.request(path, { method: 'POST', body, headers: contentType ? { 'content-type': contentType } : {}, ...extra })

describe.each(JSON_ROUTES)('POST $path', ({ path, valid }) => {
  test('the valid body is not an error (control)', async () => {
    const res = await client.post(path, valid())
    expect(res.status).toBeLessThan(500)
    expect([200, 204, 400, 401]).toContain(res.status)
  })

  test('missing fields: 422 naming each', async () => {
    const fields = Object.keys(valid())
    const detail = await expectError(client.post(path, {}), 422)
    for (const f of fields) expect(detail).toContain(`${f}: Required`)
    for (const f of fields) {
      const body: Record<string, unknown> = valid()
      delete body[f]
      expect(await expectError(client.post(path, body), 422)).toContain(f)
    }
  })

  test('wrong types: 422 naming the field, not "Required"', async () => {
    for (const f of Object.keys(valid())) {
      for (const bad of [42, true, null, {}, ['a@example.com'], { $ne: '' }]) {
        const detail = await expectError(client.post(path, { ...valid(), [f]: bad }), 422)
        expect(detail).toContain(f)
        if (bad !== null) expect(detail).not.toContain('Required')
      }
    }
  })

  test('a body that is not an object: 422', async () => {
    for (const body of [[], [valid()], null, 42, 'string', true]) {
      await expectError(client.post(path, body), 422, /body/)
    }
  })

  test('malformed JSON: 400', async () => {
    for (const body of ['{"email":', '', '{', "{'a':1}", 'undefined', '{"a":1}}', '\u0000']) {
      await expectError(raw(path, body, 'application/json'), 400, 'Malformed JSON in request body')
    }
  })

  test('wrong or missing Content-Type: 415', async () => {
    const json = JSON.stringify(valid())
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'application/jsonx']) {
      await expectError(raw(path, json, type), 415, 'Content-Type must be application/json.')
    }
    await expectError(raw(path, null), 415)
    const form = new FormData()
    for (const [k, v] of Object.entries(valid())) form.set(k, v)
    await expectError(client.request(path, { method: 'POST', body: form }), 415)
  })

  test('JSON media types with parameters or a +json suffix are accepted', async () => {
    for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'application/merge-patch+json']) {
      const res = await raw(path, JSON.stringify(valid()), type)
      expect(res.status).not.toBe(415)
      expect(res.status).toBeLessThan(500)
    }
  })

  test('a body over MAX_JSON_BYTES: 413, with or without Content-Length', async () => {
    const big = JSON.stringify({ ...valid(), pad: 'x'.repeat(4096) })
    await expectError(raw(path, big, 'application/json'), 413, 'Request body is too large.')
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 8; i++) controller.enqueue(new TextEncoder().encode(i === 0 ? '{"pad":"' : 'x'.repeat(1024)))
        controller.close()
      },
    })
    await expectError(raw(path, stream, 'application/json', { duplex: 'half' } as RequestInit), 413)
  })

  test('hostile strings: NUL, control characters, huge values, odd unicode', async () => {
    for (const f of Object.keys(valid())) {
      for (const bad of ['a\u0000b', '\u0000', 'a\r\nb', 'é'.repeat(600), '\ud800', 'x'.repeat(1500), ' ']) {
        const res = await client.post(path, { ...valid(), [f]: bad })
        expect(res.status).toBeGreaterThanOrEqual(200)
        expect(res.status).toBeLessThan(500)
        if (res.status >= 400) await expectError(res, res.status)
      }
    }
    // the WebDAV cases did reach the (accepting) server and the database path
    if (path === '/api/webdav') expect(accepting.hits).toBeGreaterThan(0)
  })

  test('__proto__ and extra fields are ignored', async () => {
    const body = `{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}},${JSON.stringify(valid()).slice(1)}`
    const res = await raw(path, body, 'application/json')
    expect(res.status).toBeLessThan(500)
    expect(({} as Record<string, unknown>).admin).toBeUndefined()
  })
})

describe('query and method edge cases', () => {
  test('GET /api/auth/verify with odd tokens', async () => {
    await expectError(client.get('/api/auth/verify?token=a&token=b'), 422, /token/)
    await expectError(client.get('/api/auth/verify?token[]=x'), 422, /token/)
    await expectError(client.get(`/api/auth/verify?token=${'a'.repeat(300)}`), 422, /token: Too big/)
    await expectError(client.get('/api/auth/verify?token=%00'), 400, 'Token is not valid.')
    await expectError(client.get('/api/auth/verify?token=%E0%A4%A'), 400)
    await expectError(client.get('/api/auth/verify?token=%ff%fe'), 400)
  })

  test('unknown routes and methods: 404 JSON', async () => {
    for (const [method, path] of [
      ['GET', '/api/nothing'],
      ['PUT', '/api/auth/login'],
      ['GET', '/api/auth/login'],
      ['PATCH', '/api/webdav'],
      ['POST', '/api/auth/session'],
      ['GET', '/api'],
      ['GET', '/api/../../etc/passwd'],
    ] as const) {
      await expectError(client.request(path, { method }), 404)
    }
  })

  test('no-body routes ignore a body they do not expect', async () => {
    const { client: c } = await signUp(t)
    const res = await c.request('/api/webdav', { method: 'DELETE', body: '{"nonsense":', headers: { 'content-type': 'application/json' } })
    expect(res.status).toBe(204)
    const big = await c.request('/api/auth/session', { method: 'GET', headers: { 'content-type': 'text/plain' } })
    expect(big.status).toBe(200)
  })

  test('a malformed session cookie is just anonymous', async () => {
    for (const cookie of ['tunefeed_session=', 'tunefeed_session=%', 'tunefeed_session="', `tunefeed_session=${'a'.repeat(5000)}`, 'garbage', ';;;=']) {
      const c = new Client(t)
      c.cookie = cookie
      await expectError(c.get('/api/auth/session'), 401, 'Unauthorized')
    }
  })

  test('health answers', async () => {
    const res = await client.get('/api/health')
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ status: 'ok', database: 'ok' })
  })
})
