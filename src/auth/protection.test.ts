import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { Client, createTestApp, signUp, type TestApp } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { resetCode, createSmtpTestApp, verifyToken, type TestSmtp } from '../../tests/support/smtp.ts'
import { authTokens, sessions, users } from './tables.ts'
import { hashToken } from './tokens.ts'

// bun's default is 5 s per test; password hashing and databases need more on a busy machine
setDefaultTimeout(30_000)

let smtp: TestSmtp
let t: TestApp
beforeAll(async () => ({ t, smtp } = await createSmtpTestApp()))
afterAll(() => t.close())

const newEmail = () => `p-${crypto.randomUUID().slice(0, 8)}@example.com`

describe('rate limits (RATE_LIMIT_MAX=3: 3 failed logins per e-mail and IP, 15 attempts per IP, per window)', () => {
  let limited: TestApp
  beforeAll(async () => {
    limited = await createTestApp({ env: { RATE_LIMIT_MAX: '3', TRUST_PROXY: '1' } })
  })
  afterAll(() => limited.close())

  const from = (ip: string) => ({ 'x-forwarded-for': `10.9.9.9, ${ip}` })
  const login = (ip: string, email: string) =>
    new Client(limited).request('/api/auth/login', { method: 'POST', json: { email, password: 'wrong-password' }, headers: from(ip) })

  test('per e-mail and IP: after 3 failures that address is locked out of that account (429, Retry-After)', async () => {
    const email = newEmail()
    for (let i = 0; i < 3; i++) expect((await login('203.0.113.1', email)).status).toBe(401)
    const res = await login('203.0.113.1', email)
    await expectError(res, 429, 'Too many attempts, try again later.')
    const retry = Number(res.headers.get('retry-after'))
    expect(retry).toBeGreaterThan(0)
    expect(retry).toBeLessThanOrEqual(15 * 60)
    // another account from that address, and that account from another address, are not affected
    expect((await login('203.0.113.1', newEmail())).status).toBe(401)
    expect((await login('203.0.113.2', email)).status).toBe(401)
  })

  test('failures spread over addresses lock no one out: 10 wrong passwords from elsewhere, the owner still signs in', async () => {
    const { email, password } = await signUp(limited)
    for (let i = 0; i < 10; i++) await login(`198.51.100.${i % 4}`, email)
    const owner = await new Client(limited).request('/api/auth/login', { method: 'POST', json: { email, password }, headers: from('198.51.100.200') })
    expect(owner.status).toBe(200)
  })

  test('a locked pair stays locked for the right password too; a success elsewhere does not unlock it', async () => {
    const { email, password } = await signUp(limited)
    for (let i = 0; i < 3; i++) await login('198.51.100.7', email)
    const right = (ip: string) => new Client(limited).request('/api/auth/login', { method: 'POST', json: { email, password }, headers: from(ip) })
    await expectError(right('198.51.100.7'), 429)
    expect((await right('198.51.100.8')).status).toBe(200)
    await expectError(right('198.51.100.7'), 429)
  })

  test('per IP: many accounts from one address hit 429, another address still passes', async () => {
    const ip = '192.0.2.77'
    const statuses: number[] = []
    for (let i = 0; i < 16; i++) statuses.push((await login(ip, newEmail())).status)
    expect(statuses.slice(0, 15).every((s) => s === 401)).toBe(true)
    expect(statuses[15]).toBe(429)
    const res = await login(ip, newEmail())
    expect(res.status).toBe(429)
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await login('192.0.2.78', newEmail())).status).toBe(401)
  })

  test('create, sendreset and reset are limited too', async () => {
    const email = newEmail()
    const create = () =>
      new Client(limited).request('/api/auth/create', { method: 'POST', json: { email, password: 'password123' }, headers: from('203.0.113.200') })
    expect((await create()).status).toBe(204)
    expect((await create()).status).toBe(400)
    expect((await create()).status).toBe(400)
    await expectError(create(), 429)

    const send = () => new Client(limited).request('/api/auth/sendreset', { method: 'POST', json: { email }, headers: from('203.0.113.201') })
    for (let i = 0; i < 3; i++) expect((await send()).status).toBe(204)
    await expectError(send(), 429)

    // reset has no e-mail: only the per-IP budget applies
    const reset = () =>
      new Client(limited).request('/api/auth/reset', {
        method: 'POST',
        json: { token: 'WRONGCODE', password: 'password123' },
        headers: from('203.0.113.202'),
      })
    const statuses: number[] = []
    for (let i = 0; i < 16; i++) statuses.push((await reset()).status)
    expect(statuses.filter((s) => s === 400)).toHaveLength(15)
    expect(statuses[15]).toBe(429)
  })

  test('the window ends: after reset_at has passed the counter starts again', async () => {
    const email = newEmail()
    for (let i = 0; i < 3; i++) await login('203.0.113.90', email)
    expect((await login('203.0.113.90', email)).status).toBe(429)
    await limited.ctx.db.execute(sql`update rate_limits set reset_at = now() - interval '1 second' where key like ${`%${email}%`}`)
    expect((await login('203.0.113.90', email)).status).toBe(401)
  })

  test('behind the proxy, the address it appended counts, not what the client put before it', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 16; i++) {
      const res = await new Client(limited).request('/api/auth/login', {
        method: 'POST',
        json: { email: newEmail(), password: 'wrong-password' },
        headers: { 'x-forwarded-for': `203.0.113.${100 + i}, 192.0.2.99` },
      })
      statuses.push(res.status)
    }
    expect(statuses.filter((s) => s === 429)).toEqual([429])
    expect(statuses[15]).toBe(429)
  })

  test('X-Forwarded-For is ignored without TRUST_PROXY', async () => {
    const strict = await createTestApp({ env: { RATE_LIMIT_MAX: '1' } })
    try {
      const statuses: number[] = []
      for (let i = 0; i < 6; i++) {
        const res = await new Client(strict).request('/api/auth/login', {
          method: 'POST',
          json: { email: newEmail(), password: 'wrong-password' },
          headers: { 'x-forwarded-for': `203.0.113.${i}` },
        })
        statuses.push(res.status)
      }
      // 5 per IP (RATE_LIMIT_MAX * 5) although every request claimed another address
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429])
    } finally {
      await strict.close()
    }
  })
})

describe('login lock-out backoff (RATE_LIMIT_MAX=2, window 15 s: locks of 1, 2, 4 ... s)', () => {
  let quick: TestApp
  beforeAll(async () => {
    quick = await createTestApp({ env: { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_SECONDS: '15', TRUST_PROXY: '1' } })
  })
  afterAll(() => quick.close())

  test('each failure after the lock doubles it; a success clears the count', async () => {
    const { email, password } = await signUp(quick)
    const attempt = (pw: string) =>
      new Client(quick).request('/api/auth/login', { method: 'POST', json: { email, password: pw }, headers: { 'x-forwarded-for': '203.0.113.44' } })
    expect((await attempt('wrong-1')).status).toBe(401)
    expect((await attempt('wrong-2')).status).toBe(401)
    const first = await attempt(password)
    expect(first.status).toBe(429)
    expect(Number(first.headers.get('retry-after'))).toBe(1)
    await Bun.sleep(1100)
    expect((await attempt('wrong-3')).status).toBe(401)
    const second = await attempt(password)
    expect(second.status).toBe(429)
    expect(Number(second.headers.get('retry-after'))).toBe(2)
    await Bun.sleep(2100)
    expect((await attempt(password)).status).toBe(200)
    // cleared: two more failures are allowed again before a lock
    expect((await attempt('wrong-4')).status).toBe(401)
    expect((await attempt('wrong-5')).status).toBe(401)
    expect((await attempt(password)).status).toBe(429)
  })
})

describe('cross-origin requests', () => {
  const post = (headers: Record<string, string>, path = '/api/auth/login') =>
    new Client(t).request(path, { method: 'POST', json: { email: 'a@example.com', password: 'password123' }, headers })

  test('403 for an Origin of another host', async () => {
    await expectError(post({ origin: 'https://evil.example' }), 403, 'Cross-origin request refused.')
    await expectError(post({ origin: 'http://localhost.evil.example' }), 403)
    await expectError(post({ origin: 'http://localhost:4000' }), 403)
    await expectError(post({ origin: 'null' }), 403)
    await expectError(post({ origin: 'not a url' }), 403)
  })

  test('403 for Sec-Fetch-Site cross-site or same-site', async () => {
    await expectError(post({ 'sec-fetch-site': 'cross-site' }), 403, 'Cross-origin request refused.')
    await expectError(post({ 'sec-fetch-site': 'same-site' }), 403)
    await expectError(post({ 'sec-fetch-site': 'cross-site', origin: 'http://localhost' }), 403)
  })

  test('refused on every state-changing method and before authentication runs', async () => {
    const { client } = await signUp(t)
    for (const method of ['DELETE', 'PUT', 'PATCH', 'POST']) {
      const res = await client.request('/api/auth/logout', { method, headers: { origin: 'https://evil.example' } })
      expect(res.status).toBe(403)
    }
    // the session survived
    expect((await client.get('/api/auth/session')).status).toBe(200)
    await expectError(client.request('/api/webdav', { method: 'DELETE', headers: { 'sec-fetch-site': 'cross-site' } }), 403)
  })

  test('same origin, same-origin fetch metadata and plain clients pass', async () => {
    expect((await post({ origin: 'http://localhost' })).status).toBe(401)
    expect((await post({ 'sec-fetch-site': 'same-origin', origin: 'http://localhost' })).status).toBe(401)
    expect((await post({ 'sec-fetch-site': 'none' })).status).toBe(401)
    expect((await post({})).status).toBe(401)
  })

  test('GET is not refused (reads carry no side effects)', async () => {
    const res = await new Client(t).request('/api/auth/session', { headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })
    expect(res.status).toBe(401)
  })

  test('behind a trusted proxy the forwarded host is ours', async () => {
    const proxied = await createTestApp({ env: { TRUST_PROXY: '1' } })
    try {
      const ok = await new Client(proxied).request('/api/auth/login', {
        method: 'POST',
        json: { email: 'a@example.com', password: 'password123' },
        headers: { origin: 'https://tunes.example.net', 'x-forwarded-host': 'tunes.example.net' },
      })
      expect(ok.status).toBe(401)
      const bad = await new Client(proxied).request('/api/auth/login', {
        method: 'POST',
        json: { email: 'a@example.com', password: 'password123' },
        headers: { origin: 'https://evil.example', 'x-forwarded-host': 'tunes.example.net' },
      })
      expect(bad.status).toBe(403)
    } finally {
      await proxied.close()
    }
  })
})

describe('secrets at rest', () => {
  test('session, verification and reset tokens are stored only as SHA-256; passwords only as argon2id', async () => {
    const email = newEmail()
    const password = 'plain-text-password'
    const c = new Client(t)
    await c.post('/api/auth/create', { email, password })
    const verify = verifyToken(await smtp.nextMail(email))
    const [user] = await t.ctx.db.select().from(users).where(eq(users.email, email))
    const [verifyRow] = await t.ctx.db.select().from(authTokens).where(eq(authTokens.userId, user!.id))
    expect(verifyRow!.hash).toBe(hashToken(verify))
    expect(verifyRow!.hash).toMatch(/^[0-9a-f]{64}$/)

    await c.get(`/api/auth/verify?token=${verify}`)
    await c.post('/api/auth/login', { email, password })
    const session = c.cookie.split('=')[1]!
    await c.post('/api/auth/sendreset', { email })
    const code = resetCode(await smtp.nextMail(email))

    const [sessionRow] = await t.ctx.db.select().from(sessions).where(eq(sessions.userId, user!.id))
    expect(sessionRow!.id).toBe(hashToken(session))
    expect(user!.passwordHash).toStartWith('$argon2id$')
    expect(await Bun.password.verify(password, user!.passwordHash)).toBe(true)

    // no column of any auth table holds a plaintext secret
    const dump = JSON.stringify([
      await t.ctx.db.select().from(users),
      await t.ctx.db.select().from(sessions),
      await t.ctx.db.select().from(authTokens),
    ])
    for (const secret of [verify, session, code, password]) expect(dump).not.toContain(secret)
    expect(dump).not.toContain(code.toLowerCase())
  })
})
