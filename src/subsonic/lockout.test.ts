import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { createTestApp, signUp, type TestApp } from '../../tests/support/app.ts'
import { quickUser } from '../../tests/support/youtube.ts'

// Failed sign-ins on /rest count as login failures do, separately: per account and address
// (lock-out with backoff, the right password refused meanwhile) and per address over all
// accounts, which never refuses a right app password (docs/decisions/226).
setDefaultTimeout(60_000)

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_SECONDS: '600' } })
})
afterAll(() => t?.close())

const ping = async (params: Record<string, string>) => {
  const res = await t.app.request(`/rest/ping?${new URLSearchParams({ f: 'json', c: 'test', v: '1.16.1', ...params })}`)
  expect(res.status).toBe(200)
  return { retry: res.headers.get('retry-after'), body: ((await res.json()) as { 'subsonic-response': { status: string; error?: { code: number; message: string } } })['subsonic-response'] }
}

test('wrong app passwords lock the account out from that address (the right one refused meanwhile)', async () => {
  const { client, email } = await signUp(t)
  const { password } = (await (await client.request('/api/auth/subsonic', { method: 'POST' })).json()) as { password: string }
  expect((await ping({ u: email, p: password })).body.status).toBe('ok')
  for (let i = 0; i < 2; i++) expect((await ping({ u: email, p: 'wrong' })).body.error?.code).toBe(40)
  const locked = await ping({ u: email, p: password })
  expect(locked.body.error?.code).toBe(40)
  expect(locked.body.error?.message).toMatch(/Too many failed sign-ins/)
  expect(Number(locked.retry)).toBeGreaterThan(0)
})

test("failures on other accounts and API keys never refuse a right app password; past the address's limit wrong ones are answered as locked out", async () => {
  // one address for everyone (as behind a proxy without TRUST_PROXY): RATE_LIMIT_MAX × 5 = 10
  // failures over other accounts and API keys, and more
  const victim = await signUp(t)
  const made = (await (await victim.client.request('/api/auth/subsonic', { method: 'POST' })).json()) as { password: string }
  for (let i = 0; i < 12; i++) await ping(i % 2 ? { apiKey: `tf_wrong${i}` } : { u: `nobody${i}@example.com`, p: 'guess' })
  // the right app password, plain and as a salted token, signs in
  expect((await ping({ u: victim.email, p: made.password })).body.status).toBe('ok')
  const { md5 } = await import('./ids.ts')
  expect((await ping({ u: victim.email, t: md5(`${made.password}salt1`), s: 'salt1' })).body.status).toBe('ok')
  // a right API key too
  const { token } = (await (await victim.client.post('/api/auth/tokens', { name: 'player' })).json()) as { token: string }
  expect((await ping({ apiKey: token })).body.status).toBe('ok')
  // a wrong one from this address is answered as a lock-out, with the wait
  const wrong = await ping({ u: victim.email, p: 'not it' })
  expect(wrong.body.error).toMatchObject({ code: 40, message: expect.stringMatching(/Too many failed sign-ins/) })
  expect(Number(wrong.retry)).toBeGreaterThan(0)
  const wrongKey = await ping({ apiKey: 'tf_wrong-again' })
  expect(wrongKey.body.error?.message).toMatch(/Too many failed sign-ins/)
  // one failure on the victim's own account is under its own limit: the right password still passes
  expect((await ping({ u: victim.email, p: made.password })).body.status).toBe('ok')
})

test('requests through a proxy that is not trusted (X-Forwarded-For, TRUST_PROXY off) show on the admin status', async () => {
  const { client } = await quickUser(t, { admin: true })
  const status = async () => ((await (await client.get('/api/admin/status')).json()) as { proxy: unknown }).proxy
  expect(await status()).toEqual({ trusted: false, untrustedForwarded: false })
  await t.app.request('/rest/ping?f=json&u=x&p=y', { headers: { 'x-forwarded-for': '203.0.113.7' } })
  expect(await status()).toEqual({ trusted: false, untrustedForwarded: true })
})
