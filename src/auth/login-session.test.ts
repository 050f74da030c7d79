import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { Client, createTestApp, signUp, type TestApp } from '../../tests/support/app.ts'
import { expectError, setCookie } from '../../tests/support/http.ts'
import { sessionCache } from './session-cache.ts'
import { SESSION_COOKIE, SESSION_TTL } from './session.ts'
import { setAdmin } from './queries.ts'
import { sessions, users } from './tables.ts'
import { hashToken } from './tokens.ts'

// bun's default is 5 s per test; password hashing and databases need more on a busy machine
setDefaultTimeout(30_000)

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const DAY = 24 * 60 * 60 * 1000

async function sessionRow(token: string) {
  const [row] = await t.ctx.db.select().from(sessions).where(eq(sessions.id, hashToken(token)))
  return row
}

describe('POST /api/auth/login', () => {
  test('200 {email,admin} and an HttpOnly, SameSite=Lax, Path=/ session cookie, not Secure over http', async () => {
    const { email, password } = await signUp(t)
    const res = await new Client(t).post('/api/auth/login', { email, password })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ id: expect.any(String), email, admin: false })
    const cookie = setCookie(res, SESSION_COOKIE)!
    expect(cookie.value).toMatch(/^[a-z2-7]{32}$/)
    expect(cookie.attrs.httponly).toBe(true)
    expect(cookie.attrs.samesite).toBe('Lax')
    expect(cookie.attrs.path).toBe('/')
    expect(cookie.attrs.secure).toBeUndefined()
    const expires = new Date(cookie.attrs.expires as string).getTime()
    expect(Math.abs(expires - (Date.now() + SESSION_TTL))).toBeLessThan(60_000)
    // the database keeps the same expiry
    const row = await sessionRow(cookie.value)
    expect(Math.abs(row!.expiresAt.getTime() - expires)).toBeLessThan(2000)
  })

  test('admin flag is reported', async () => {
    const { email, password } = await signUp(t)
    await t.ctx.db.update(users).set({ admin: true }).where(eq(users.email, email))
    const c = new Client(t)
    expect(await (await c.post('/api/auth/login', { email, password })).json()).toEqual({ id: expect.any(String), email, admin: true })
    expect(await (await c.get('/api/auth/session')).json()).toEqual({ id: expect.any(String), email, admin: true })
  })

  test('Secure over https', async () => {
    const { email, password } = await signUp(t)
    const res = await t.app.request('https://localhost/api/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    })
    expect(res.status).toBe(200)
    expect(setCookie(res, SESSION_COOKIE)!.attrs.secure).toBe(true)
  })

  test('X-Forwarded-Proto: https makes it Secure only with TRUST_PROXY', async () => {
    const trusting = await createTestApp({ env: { TRUST_PROXY: 'true' } })
    try {
      for (const [app, secure] of [
        [t, false],
        [trusting, true],
      ] as const) {
        const { email, password } = await signUp(app)
        const res = await new Client(app).request('/api/auth/login', {
          method: 'POST',
          json: { email, password },
          headers: { 'x-forwarded-proto': 'https' },
        })
        expect(res.status).toBe(200)
        expect(setCookie(res, SESSION_COOKIE)!.attrs.secure === true).toBe(secure)
      }
    } finally {
      await trusting.close()
    }
  })

  test('401 with one text for an unknown e-mail and a wrong password', async () => {
    const { email } = await signUp(t)
    const c = new Client(t)
    await expectError(c.post('/api/auth/login', { email, password: 'wrong-password' }), 401, 'Incorrect email or password.')
    await expectError(c.post('/api/auth/login', { email: 'nobody@example.com', password: 'wrong-password' }), 401, 'Incorrect email or password.')
    expect(c.cookie).toBe('')
  })

  test('401 Account is unverified. only after a correct password', async () => {
    const c = new Client(t)
    const email = `unverified-${crypto.randomUUID().slice(0, 6)}@example.com`
    await c.post('/api/auth/create', { email, password: 'password123' })
    await expectError(c.post('/api/auth/login', { email, password: 'password124' }), 401, 'Incorrect email or password.')
    const res = await c.post('/api/auth/login', { email, password: 'password123' })
    await expectError(res, 401, 'Account is unverified.')
    expect(setCookie(res, SESSION_COOKIE)).toBeUndefined()
  })

  test('e-mail is matched case-insensitively', async () => {
    const { email, password } = await signUp(t)
    const res = await new Client(t).post('/api/auth/login', { email: ` ${email.toUpperCase()}`, password })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ id: expect.any(String), email, admin: false })
  })

  test('422 for missing or malformed credentials', async () => {
    const c = new Client(t)
    await expectError(c.post('/api/auth/login', { email: 'a@example.com' }), 422, /password/)
    await expectError(c.post('/api/auth/login', { password: 'x' }), 422, /email/)
    await expectError(c.post('/api/auth/login', { email: 'nope', password: 'password123' }), 422, /email/)
  })
})

describe('GET /api/auth/session and sliding expiry', () => {
  test('401 Unauthorized without a cookie or with an unknown one', async () => {
    await expectError(new Client(t).get('/api/auth/session'), 401, 'Unauthorized')
    const forged = new Client(t)
    forged.cookie = `${SESSION_COOKIE}=abcdefghijklmnopqrstuvwxyz234567`
    await expectError(forged.get('/api/auth/session'), 401, 'Unauthorized')
  })

  test('a fresh session is not re-issued on every request', async () => {
    const { client } = await signUp(t)
    const res = await client.get('/api/auth/session')
    expect(res.status).toBe(200)
    expect(setCookie(res, SESSION_COOKIE)).toBeUndefined()
  })

  test('a session close to its end is extended to 30 days and the cookie set again', async () => {
    const { client, email } = await signUp(t)
    const token = client.cookie.split('=')[1]!
    await t.ctx.db
      .update(sessions)
      .set({ expiresAt: new Date(Date.now() + 60_000) })
      .where(eq(sessions.id, hashToken(token)))
    const res = await client.get('/api/auth/session')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ id: expect.any(String), email, admin: false })
    const cookie = setCookie(res, SESSION_COOKIE)!
    expect(cookie.value).toBe(token)
    expect(cookie.attrs.httponly).toBe(true)
    expect(cookie.attrs.samesite).toBe('Lax')
    expect(cookie.attrs.path).toBe('/')
    const expires = new Date(cookie.attrs.expires as string).getTime()
    expect(expires).toBeGreaterThan(Date.now() + 29 * DAY)
    const row = await sessionRow(token)
    expect(row!.expiresAt.getTime()).toBeGreaterThan(Date.now() + 29 * DAY)
    // and the next request does not renew again
    expect(setCookie(await client.get('/api/auth/session'), SESSION_COOKIE)).toBeUndefined()
  })

  test('past half its life a session is renewed; before that it is not', async () => {
    const { client } = await signUp(t)
    const token = client.cookie.split('=')[1]!
    const id = hashToken(token)
    await t.ctx.db.update(sessions).set({ expiresAt: new Date(Date.now() + 16 * DAY) }).where(eq(sessions.id, id))
    expect(setCookie(await client.get('/api/auth/session'), SESSION_COOKIE)).toBeUndefined()
    await t.ctx.db.update(sessions).set({ expiresAt: new Date(Date.now() + 14 * DAY) }).where(eq(sessions.id, id))
    // a write behind the app's back: the in-memory session cache would keep the old expiry for up to 5 s
    sessionCache(t.ctx.db).clear()
    expect(setCookie(await client.get('/api/auth/session'), SESSION_COOKIE)).toBeDefined()
  })

  test('an expired session is refused', async () => {
    const { client } = await signUp(t)
    const token = client.cookie.split('=')[1]!
    await t.ctx.db
      .update(sessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(sessions.id, hashToken(token)))
    await expectError(client.get('/api/auth/session'), 401, 'Unauthorized')
  })

  test('sessions of a deleted user stop working', async () => {
    const { client, email } = await signUp(t)
    await t.ctx.db.delete(users).where(eq(users.email, email))
    await expectError(client.get('/api/auth/session'), 401, 'Unauthorized')
  })

  test('writes behind the app are seen once the cache entry is older than its TTL', async () => {
    const { client } = await signUp(t)
    expect((await client.get('/api/auth/session')).status).toBe(200)
    const token = client.cookie.split('=')[1]!
    await t.ctx.db.delete(sessions).where(eq(sessions.id, hashToken(token)))
    // still cached (another process would see the same for up to 5 s) ...
    expect((await client.get('/api/auth/session')).status).toBe(200)
    // ... until the entry is older than the TTL
    const cache = sessionCache(t.ctx.db)
    expect(cache.get(hashToken(token), Date.now() + cache.ttlMs)).toBeUndefined()
    await expectError(client.get('/api/auth/session'), 401, 'Unauthorized')
  })

  test('the admin flag set through setAdmin is seen at once', async () => {
    const { client, email } = await signUp(t)
    expect(await (await client.get('/api/auth/session')).json()).toEqual({ id: expect.any(String), email, admin: false })
    await setAdmin(t.ctx.db, email, true)
    expect(await (await client.get('/api/auth/session')).json()).toEqual({ id: expect.any(String), email, admin: true })
    // another admin first: setAdmin never demotes the last one (src/admin/last-admin.test.ts)
    await setAdmin(t.ctx.db, (await signUp(t)).email, true)
    await setAdmin(t.ctx.db, email, false)
    expect(await (await client.get('/api/auth/session')).json()).toEqual({ id: expect.any(String), email, admin: false })
  })

  test('two logins are two independent sessions', async () => {
    const { email, password } = await signUp(t)
    const a = new Client(t)
    const b = new Client(t)
    await a.post('/api/auth/login', { email, password })
    await b.post('/api/auth/login', { email, password })
    expect(a.cookie).not.toBe(b.cookie)
    expect((await a.delete('/api/auth/logout')).status).toBe(200)
    expect((await a.get('/api/auth/session')).status).toBe(401)
    expect((await b.get('/api/auth/session')).status).toBe(200)
  })
})

describe('DELETE /api/auth/logout', () => {
  test('200, the session row is deleted and the cookie cleared', async () => {
    const { client } = await signUp(t)
    const token = client.cookie.split('=')[1]!
    expect(await sessionRow(token)).toBeDefined()
    const res = await client.delete('/api/auth/logout')
    expect(res.status).toBe(200)
    const cleared = setCookie(res, SESSION_COOKIE)!
    expect(cleared.value).toBe('')
    expect(cleared.attrs['max-age']).toBe('0')
    expect(cleared.attrs.path).toBe('/')
    expect(await sessionRow(token)).toBeUndefined()
    // the old cookie, replayed, is dead
    const replay = new Client(t)
    replay.cookie = `${SESSION_COOKIE}=${token}`
    await expectError(replay.get('/api/auth/session'), 401, 'Unauthorized')
  })

  test('401 without a session', async () => {
    await expectError(new Client(t).delete('/api/auth/logout'), 401, 'Unauthorized')
  })
})
