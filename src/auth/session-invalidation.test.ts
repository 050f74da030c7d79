import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { Client, createTestApp, signUp, type TestApp, waitForMail } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { quickUser } from '../../tests/support/youtube.ts'
import { sessionCache } from './session-cache.ts'
import { sessionToken } from './session.ts'
import { sessions, users } from './tables.ts'
import { hashToken } from './tokens.ts'

// Every change that ends or changes a session is seen by the very next request, although the
// session check answers from the in-memory cache (session-cache.ts) without a promise when it
// can (readSession in session.ts): each case first proves the cookie's session is cached.

// bun's default is 5 s per test; password hashing and databases need more on a busy machine
setDefaultTimeout(30_000)

let t: TestApp
let boss: Awaited<ReturnType<typeof quickUser>>
beforeAll(async () => {
  t = await createTestApp()
  boss = await quickUser(t, { admin: true })
})
afterAll(() => t.close())

/** A signed-in client whose session is in use, and so in the session cache. */
async function warm(client: Client) {
  expect((await client.get('/api/auth/session')).status).toBe(200)
  const id = hashToken(sessionToken(client.cookie)!)
  expect(sessionCache(t.ctx.db).get(id)).toBeDefined()
  return id
}

async function signedIn(email: string, password: string) {
  const client = new Client(t)
  expect((await client.post('/api/auth/login', { email, password })).status).toBe(200)
  return client
}

async function userId(email: string) {
  const [row] = await t.ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email))
  return row!.id
}

describe('a cached session ends with the change that ends it', () => {
  test('logout: the old cookie gets 401 at once', async () => {
    const { client } = await signUp(t)
    const cookie = client.cookie
    await warm(client)
    expect((await client.delete('/api/auth/logout')).status).toBe(200)
    const old = new Client(t)
    old.cookie = cookie
    await expectError(old.get('/api/auth/session'), 401, 'Unauthorized')
  })

  test('password change: the other sessions get 401 at once, the one that changed it stays', async () => {
    const { client, email, password } = await signUp(t)
    const other = await signedIn(email, password)
    await warm(client)
    await warm(other)
    expect((await client.put('/api/auth/password', { currentPassword: password, password: 'brand new pass' })).status).toBe(204)
    await expectError(other.get('/api/auth/session'), 401, 'Unauthorized')
    expect((await client.get('/api/auth/session')).status).toBe(200)
  })

  test('password reset: every session gets 401 at once', async () => {
    const { client, email, password } = await signUp(t)
    const other = await signedIn(email, password)
    await warm(client)
    await warm(other)
    const sent = t.outbox.length
    expect((await new Client(t).post('/api/auth/sendreset', { email })).status).toBe(204)
    const code = /reset code is:\s*([A-Z0-9]+)/i.exec((await waitForMail(t, email, { after: sent })).text)![1]
    expect((await new Client(t).post('/api/auth/reset', { token: code, password: 'brand-new-password' })).status).toBe(204)
    await expectError(client.get('/api/auth/session'), 401, 'Unauthorized')
    await expectError(other.get('/api/auth/session'), 401, 'Unauthorized')
  })

  test('disable (admin): the session gets 401 at once and stays refused after enabling', async () => {
    const { client, email } = await signUp(t)
    await warm(client)
    const id = await userId(email)
    expect((await boss.client.request(`/api/admin/users/${id}`, { method: 'PATCH', json: { disabled: true } })).status).toBe(200)
    await expectError(client.get('/api/auth/session'), 401, 'Unauthorized')
    expect((await boss.client.request(`/api/admin/users/${id}`, { method: 'PATCH', json: { disabled: false } })).status).toBe(200)
    await expectError(client.get('/api/auth/session'), 401, 'Unauthorized')
  })

  test('admin flag (admin): the next answer carries the new flag', async () => {
    const { client, email } = await signUp(t)
    await warm(client)
    expect(await (await client.get('/api/auth/session')).json()).toEqual({ id: expect.any(String), email, admin: false })
    const id = await userId(email)
    expect((await boss.client.request(`/api/admin/users/${id}`, { method: 'PATCH', json: { admin: true } })).status).toBe(200)
    expect(await (await client.get('/api/auth/session')).json()).toEqual({ id: expect.any(String), email, admin: true })
  })

  test('delete (admin): the session gets 401 at once', async () => {
    const { client, email } = await signUp(t)
    await warm(client)
    expect((await boss.client.request(`/api/admin/users/${await userId(email)}`, { method: 'DELETE' })).status).toBe(204)
    await expectError(client.get('/api/auth/session'), 401, 'Unauthorized')
  })

  test('account deletion: another session of the account gets 401 at once', async () => {
    const { client, email, password } = await signUp(t)
    const other = await signedIn(email, password)
    await warm(client)
    await warm(other)
    expect((await client.request('/api/auth/account', { method: 'DELETE', json: { password } })).status).toBe(204)
    await expectError(other.get('/api/auth/session'), 401, 'Unauthorized')
  })

  test("expiry: a cached session is refused once its own expiry passes, without waiting for the cache's TTL", async () => {
    const { client } = await signUp(t)
    const id = await warm(client)
    const soon = new Date(Date.now() + 100)
    await t.ctx.db.update(sessions).set({ expiresAt: soon }).where(eq(sessions.id, id))
    const cached = sessionCache(t.ctx.db).get(id)!
    sessionCache(t.ctx.db).set(id, cached.user, soon)
    await Bun.sleep(150)
    await expectError(client.get('/api/auth/session'), 401, 'Unauthorized')
  })

  test('renewal: a cached session due for its sliding renewal goes to the database and is extended', async () => {
    const { client } = await signUp(t)
    const id = await warm(client)
    // past half its life: the cache no longer vouches for it, the database renews it and a new cookie goes out
    const due = new Date(Date.now() + 10 * 24 * 60 * 60 * 1000)
    await t.ctx.db.update(sessions).set({ expiresAt: due }).where(eq(sessions.id, id))
    sessionCache(t.ctx.db).set(id, sessionCache(t.ctx.db).get(id)!.user, due)
    const res = await client.get('/api/auth/session')
    expect(res.status).toBe(200)
    expect(res.headers.get('set-cookie')).toContain('tunefeed_session=')
    const [row] = await t.ctx.db.select().from(sessions).where(eq(sessions.id, id))
    expect(row!.expiresAt.getTime()).toBeGreaterThan(due.getTime() + 10 * 24 * 60 * 60 * 1000)
    expect(sessionCache(t.ctx.db).get(id)!.expiresAt).toBe(row!.expiresAt.getTime())
  })

  test('a cookie whose session was never valid gets 401 every time, and nothing is cached for it', async () => {
    const stranger = new Client(t)
    stranger.cookie = 'tunefeed_session=not-a-real-session-token'
    await expectError(stranger.get('/api/auth/session'), 401, 'Unauthorized')
    await expectError(stranger.get('/api/auth/session'), 401, 'Unauthorized')
    expect(sessionCache(t.ctx.db).get(hashToken('not-a-real-session-token'))).toBeUndefined()
  })
})
