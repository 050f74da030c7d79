import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { Client, createTestApp, signUp, type TestApp, waitForMail } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { md5 } from '../subsonic/ids.ts'
import { users } from './tables.ts'

// Recovery ends every credential (issue 32, finding 2; docs/decisions/227): a reset, or a password
// change without keepTokens, also ends the Subsonic app password and changes the podcast feed
// addresses. Reading and rotating those addresses, and rolling yt-dlp back, need a session.
// Answers that carry a credential are not cached.
setDefaultTimeout(60_000)

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

type Podcasts = { allUrl: string; opmlUrl: string }
const path = (url: string) => new URL(url).pathname

async function credentials(client: Client) {
  const made = await client.request('/api/auth/subsonic', { method: 'POST' })
  expect(made.status).toBe(201)
  expect(made.headers.get('cache-control')).toBe('no-store')
  const { password } = (await made.json()) as { password: string }
  const listed = await client.get('/api/youtube/podcasts')
  expect(listed.status).toBe(200)
  expect(listed.headers.get('cache-control')).toBe('no-store')
  const feeds = (await listed.json()) as Podcasts
  return { password, feeds }
}

/** `ok`, or the error code of a /rest/ping signed in with `p` or with `t` and `s`. */
async function rest(email: string, password: string, how: 'p' | 't') {
  const salt = crypto.randomUUID().slice(0, 8)
  const auth: Record<string, string> = how === 'p' ? { p: password } : { t: md5(password + salt), s: salt }
  const res = await t.app.request(`/rest/ping?${new URLSearchParams({ f: 'json', c: 'test', v: '1.16.1', u: email, ...auth })}`)
  const body = ((await res.json()) as { 'subsonic-response': { status: string; error?: { code: number } } })['subsonic-response']
  return body.status === 'ok' ? 'ok' : body.error?.code
}

const feedStatus = async (feeds: Podcasts) => [(await t.app.request(path(feeds.allUrl))).status, (await t.app.request(path(feeds.opmlUrl))).status]

async function expectWorking(email: string, password: string, feeds: Podcasts) {
  expect(await rest(email, password, 'p')).toBe('ok')
  expect(await rest(email, password, 't')).toBe('ok')
  expect(await feedStatus(feeds)).toEqual([200, 200])
}

async function expectEnded(client: Client, email: string, password: string, feeds: Podcasts) {
  expect(await rest(email, password, 'p')).toBe(40)
  expect(await rest(email, password, 't')).toBe(40)
  expect(await feedStatus(feeds)).toEqual([404, 404])
  // new addresses, which answer
  const now = (await (await client.get('/api/youtube/podcasts')).json()) as Podcasts
  expect(now.allUrl).not.toBe(feeds.allUrl)
  expect(await feedStatus(now)).toEqual([200, 200])
  expect(await (await client.get('/api/auth/subsonic')).json()).toEqual({ username: email, hasPassword: false })
}

describe('a password reset', () => {
  test('ends the app password (p, and t with s) and the feed addresses at once; the mail says so', async () => {
    const { client, email } = await signUp(t)
    const { password, feeds } = await credentials(client)
    await expectWorking(email, password, feeds)
    const before = t.outbox.length
    expect((await new Client(t).post('/api/auth/sendreset', { email })).status).toBe(204)
    const mail = await waitForMail(t, email, { after: before })
    for (const text of [mail.text, mail.html]) expect(text).toContain("revokes your API tokens and your music players' app password, and changes your podcast feed addresses")
    const code = /reset code is:\s*([A-Z0-9]+)/i.exec(mail.text)![1]!
    expect((await new Client(t).post('/api/auth/reset', { token: code, password: 'reset password 1' })).status).toBe(204)
    const again = new Client(t)
    expect((await again.post('/api/auth/login', { email, password: 'reset password 1' })).status).toBe(200)
    await expectEnded(again, email, password, feeds)
  })
})

describe('a password change', () => {
  test('without keepTokens ends them too; with keepTokens they stay', async () => {
    const { client, email, password: login } = await signUp(t)
    const first = await credentials(client)
    expect((await client.put('/api/auth/password', { currentPassword: login, password: 'changed password 1', keepTokens: true })).status).toBe(204)
    await expectWorking(email, first.password, first.feeds)
    expect((await client.put('/api/auth/password', { currentPassword: 'changed password 1', password: 'changed password 2' })).status).toBe(204)
    await expectEnded(client, email, first.password, first.feeds)
  })

  test("another user's app password and feeds are untouched", async () => {
    const a = await signUp(t)
    const b = await signUp(t)
    const bs = await credentials(b.client)
    await credentials(a.client)
    expect((await a.client.put('/api/auth/password', { currentPassword: a.password, password: 'changed password 3' })).status).toBe(204)
    await expectWorking(b.email, bs.password, bs.feeds)
  })
})

describe('a session, not an API token', () => {
  test('reads and rotates the podcast addresses (403 for a token); the answers are not cached', async () => {
    const { client } = await signUp(t)
    const created = await client.post('/api/auth/tokens', { name: 'script' })
    expect(created.headers.get('cache-control')).toBe('no-store')
    const { token } = (await created.json()) as { token: string }
    const bearer = { authorization: `Bearer ${token}` }
    await expectError(t.app.request('/api/youtube/podcasts', { headers: bearer }), 403, 'API tokens cannot be used here; sign in instead.')
    await expectError(t.app.request('/api/youtube/podcasts/rotate', { method: 'POST', headers: bearer }), 403, 'API tokens cannot be used here; sign in instead.')
    // the token still works where tokens do
    expect((await t.app.request('/api/youtube/sponsorblock', { headers: bearer })).status).toBe(200)
    const rotated = await client.post('/api/youtube/podcasts/rotate')
    expect(rotated.status).toBe(200)
    expect(rotated.headers.get('cache-control')).toBe('no-store')
    expect(((await rotated.json()) as Podcasts).allUrl).toContain('/feeds/')
  })

  test("rolls yt-dlp back: an admin's token gets 403, the admin's session reaches the route", async () => {
    const { client, email } = await signUp(t)
    await t.ctx.db.update(users).set({ admin: true }).where(eq(users.email, email))
    const { token } = (await (await client.post('/api/auth/tokens', { name: 'admin script' })).json()) as { token: string }
    await expectError(t.app.request('/api/admin/tools/ytdlp/rollback', { method: 'POST', headers: { authorization: `Bearer ${token}` } }), 403)
    // the managed yt-dlp is off in tests: nothing to roll back to
    await expectError(client.post('/api/admin/tools/ytdlp/rollback'), 409, 'No previous version.')
  })
})
