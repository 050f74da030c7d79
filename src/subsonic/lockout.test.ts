import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { createTestApp, signUp, type TestApp } from '../../tests/support/app.ts'

// Failed sign-ins on /rest count as login failures do: per account and address (lock-out
// with backoff, the right password refused meanwhile) and per address over all accounts.
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

test('wrong app passwords lock the account out from that address, then the address is refused for every account', async () => {
  const { client, email } = await signUp(t)
  const { password } = (await (await client.request('/api/auth/subsonic', { method: 'POST' })).json()) as { password: string }
  expect((await ping({ u: email, p: password })).body.status).toBe('ok')
  for (let i = 0; i < 2; i++) expect((await ping({ u: email, p: 'wrong' })).body.error?.code).toBe(40)
  const locked = await ping({ u: email, p: password })
  expect(locked.body.error?.code).toBe(40)
  expect(locked.body.error?.message).toMatch(/Too many failed sign-ins/)
  expect(Number(locked.retry)).toBeGreaterThan(0)

  // the address: RATE_LIMIT_MAX × 5 failures over any accounts (and API keys) refuse it altogether
  for (let i = 0; i < 8; i++) await ping({ apiKey: `tf_wrong${i}` })
  const other = await signUp(t)
  const made = (await (await other.client.request('/api/auth/subsonic', { method: 'POST' })).json()) as { password: string }
  const refused = await ping({ u: other.email, p: made.password })
  expect(refused.body.error?.message).toMatch(/Too many failed sign-ins/)
})
