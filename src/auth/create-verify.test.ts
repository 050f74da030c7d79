import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { Client, createTestApp, type TestApp } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { resetCode, createSmtpTestApp, verifyLink, verifyToken, type TestSmtp } from '../../tests/support/smtp.ts'
import { authTokens, users } from './tables.ts'

// bun's default is 5 s per test; password hashing and databases need more on a busy machine
setDefaultTimeout(30_000)

let smtp: TestSmtp
let t: TestApp
beforeAll(async () => ({ t, smtp } = await createSmtpTestApp()))
afterAll(() => t.close())

const newEmail = (tag = 'user') => `${tag}-${crypto.randomUUID().slice(0, 8)}@example.com`

describe('POST /api/auth/create', () => {
  test('204 and a verification mail over SMTP with a link to /verify/<token>', async () => {
    const email = newEmail()
    const res = await new Client(t).post('/api/auth/create', { email, password: 'password123' })
    expect(res.status).toBe(204)
    expect(await res.text()).toBe('')
    const mail = await smtp.nextMail(email)
    expect(mail.to).toEqual([email])
    expect(mail.from).toBe('no-reply@tunefeed.local')
    expect(mail.subject).toBe('Verify your Tunefeed account')
    // no PUBLIC_URL: the address the server listens on (app.request(): HOST 0.0.0.0, so localhost, and PORT)
    expect(verifyLink(mail)).toMatch(/^http:\/\/localhost:3000\/verify\/[a-z2-7]{32}$/)
    expect(mail.html).toContain(verifyLink(mail))
    const [user] = await t.ctx.db.select().from(users).where(eq(users.email, email))
    expect(user!.verifiedAt).toBeNull()
    expect(user!.admin).toBe(false)
  })

  test('the link uses PUBLIC_URL when set; without it never the Host or X-Forwarded-Host a request names', async () => {
    const pub = await createTestApp({ smtpUrl: smtp.url, env: { PUBLIC_URL: 'https://music.example.org/' } })
    const proxied = await createTestApp({ smtpUrl: smtp.url, env: { TRUST_PROXY: '1' } })
    try {
      const a = newEmail()
      await new Client(pub).post('/api/auth/create', { email: a, password: 'password123' })
      expect(verifyLink(await smtp.nextMail(a))).toStartWith('https://music.example.org/verify/')

      const b = newEmail()
      await new Client(proxied).request('/api/auth/create', {
        method: 'POST',
        json: { email: b, password: 'password123' },
        headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example', host: 'evil.example' },
      })
      expect(verifyLink(await smtp.nextMail(b))).toStartWith('http://localhost:3000/verify/')
      const c = newEmail()
      await new Client(t).request('http://evil.example/api/auth/create', {
        method: 'POST',
        json: { email: c, password: 'password123' },
        headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' },
      })
      expect(verifyLink(await smtp.nextMail(c))).toStartWith('http://localhost:3000/verify/')
      // with PUBLIC_URL the headers do not matter either
      const d = newEmail()
      await new Client(pub).request('/api/auth/create', { method: 'POST', json: { email: d, password: 'password123' }, headers: { host: 'evil.example' } })
      expect(verifyLink(await smtp.nextMail(d))).toStartWith('https://music.example.org/verify/')
    } finally {
      await pub.close()
      await proxied.close()
    }
  })

  test('e-mail is trimmed and lower-cased; the same verified address again is 400 Account exists.', async () => {
    const email = newEmail('Mixed.Case')
    const c = new Client(t)
    expect((await c.post('/api/auth/create', { email: `  ${email.toUpperCase()} `, password: 'password123' })).status).toBe(204)
    const [user] = await t.ctx.db.select().from(users).where(eq(users.email, email.toLowerCase()))
    expect(user).toBeDefined()
    expect((await c.get(`/api/auth/verify?token=${verifyToken(await smtp.nextMail(email.toLowerCase()))}`)).status).toBe(204)
    await expectError(c.post('/api/auth/create', { email: email.toLowerCase(), password: 'other-password' }), 400, 'Account exists.')
    await expectError(c.post('/api/auth/create', { email, password: 'other-password' }), 400, 'Account exists.')
    // only the first sign-up sent a mail
    expect(smtp.mailsTo(email.toLowerCase())).toHaveLength(1)
  })

  test('an unverified address again: 204, the pending account is replaced and only the new link works', async () => {
    const email = newEmail()
    const c = new Client(t)
    expect((await c.post('/api/auth/create', { email, password: 'squatter-pass' })).status).toBe(204)
    const oldToken = verifyToken(await smtp.nextMail(email))
    const [before] = await t.ctx.db.select().from(users).where(eq(users.email, email))
    expect((await c.post('/api/auth/create', { email, password: 'owner-password' })).status).toBe(204)
    const newToken = verifyToken(await smtp.nextMail(email))
    expect(newToken).not.toBe(oldToken)
    const rows = await t.ctx.db.select().from(users).where(eq(users.email, email))
    expect(rows).toHaveLength(1)
    expect(rows[0]!.id).not.toBe(before!.id)
    await expectError(c.get(`/api/auth/verify?token=${oldToken}`), 400, 'Token is not valid.')
    expect((await c.get(`/api/auth/verify?token=${newToken}`)).status).toBe(204)
    await expectError(c.post('/api/auth/login', { email, password: 'squatter-pass' }), 401, 'Incorrect email or password.')
    expect((await c.post('/api/auth/login', { email, password: 'owner-password' })).status).toBe(200)
  })

  test('SIGNUP=oidc-only: 403 for password sign-up', async () => {
    const closed = await createTestApp({
      env: { SIGNUP: 'oidc-only', OIDC_ISSUER: 'http://127.0.0.1:1/', OIDC_CLIENT_ID: 'tunefeed' },
    })
    try {
      await expectError(new Client(closed).post('/api/auth/create', { email: newEmail(), password: 'password123' }), 403, 'Sign-up with a password is turned off.')
      expect(closed.outbox).toEqual([])
    } finally {
      await closed.close()
    }
  })

  test('422 for a bad e-mail or a password shorter than 8, naming the field, and no mail', async () => {
    const c = new Client(t)
    for (const email of ['not-an-email', 'a@', '@example.com', 'a b@example.com', '', `${'x'.repeat(250)}@example.com`]) {
      const detail = await expectError(c.post('/api/auth/create', { email, password: 'password123' }), 422)
      expect(detail).toContain('email')
    }
    const email = newEmail()
    const detail = await expectError(c.post('/api/auth/create', { email, password: 'short77' }), 422)
    expect(detail).toContain('password')
    expect(detail).toContain('at least 8')
    expect((await c.post('/api/auth/create', { email, password: '12345678' })).status).toBe(204)
    await smtp.nextMail(email)
    expect(smtp.mailsTo(email)).toHaveLength(1)
  })
})

describe('GET /api/auth/verify', () => {
  async function created() {
    const email = newEmail()
    const c = new Client(t)
    expect((await c.post('/api/auth/create', { email, password: 'password123' })).status).toBe(204)
    return { c, email, token: verifyToken(await smtp.nextMail(email)) }
  }

  test('204, the account is verified and can log in', async () => {
    const { c, email, token } = await created()
    expect((await c.get(`/api/auth/verify?token=${token}`)).status).toBe(204)
    const [user] = await t.ctx.db.select().from(users).where(eq(users.email, email))
    expect(user!.verifiedAt).toBeInstanceOf(Date)
    const login = await c.post('/api/auth/login', { email, password: 'password123' })
    expect(login.status).toBe(200)
    expect(await login.json()).toEqual({ id: expect.any(String), email, admin: false })
  })

  test('400 Token is not valid. for an unknown token', async () => {
    await expectError(new Client(t).get('/api/auth/verify?token=abcdefghijklmnopqrstuvwxyz234567'), 400, 'Token is not valid.')
    await expectError(new Client(t).get('/api/auth/verify?token=x'), 400, 'Token is not valid.')
  })

  test('400 for a token used before, marked "already verified" for the page', async () => {
    const { c, token } = await created()
    expect((await c.get(`/api/auth/verify?token=${token}`)).status).toBe(204)
    const again = c.get(`/api/auth/verify?token=${token}`)
    await expectError(again, 400, 'Token is not valid.')
    expect((await again).headers.get('x-error-kind')).toBe('already_verified')
    // an unknown token is only "not valid"
    const unknown = new Client(t).get('/api/auth/verify?token=abcdefghijklmnopqrstuvwxyz234567')
    await expectError(unknown, 400, 'Token is not valid.')
    expect((await unknown).headers.get('x-error-kind')).toBeNull()
  })

  test('400 for an expired token (24 h)', async () => {
    const { c, email, token } = await created()
    const [user] = await t.ctx.db.select().from(users).where(eq(users.email, email))
    await t.ctx.db
      .update(authTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(authTokens.userId, user!.id))
    await expectError(c.get(`/api/auth/verify?token=${token}`), 400, 'Token is not valid.')
    const [after] = await t.ctx.db.select().from(users).where(eq(users.id, user!.id))
    expect(after!.verifiedAt).toBeNull()
    await expectError(c.post('/api/auth/login', { email, password: 'password123' }), 401, 'Account is unverified.')
  })

  test('the token is valid for 24 hours', async () => {
    const { email } = await created()
    const [user] = await t.ctx.db.select().from(users).where(eq(users.email, email))
    const [row] = await t.ctx.db.select().from(authTokens).where(eq(authTokens.userId, user!.id))
    const hours = (row!.expiresAt.getTime() - row!.createdAt.getTime()) / 3_600_000
    expect(hours).toBeGreaterThan(23.9)
    expect(hours).toBeLessThan(24.1)
  })

  test('a reset code cannot verify an account', async () => {
    const { c, email, token } = await created()
    expect((await c.get(`/api/auth/verify?token=${token}`)).status).toBe(204)
    expect((await c.post('/api/auth/sendreset', { email })).status).toBe(204)
    const code = resetCode(await smtp.nextMail(email))
    await expectError(c.get(`/api/auth/verify?token=${code}`), 400, 'Token is not valid.')
  })

  test('422 when the token is missing', async () => {
    await expectError(new Client(t).get('/api/auth/verify'), 422, /token/)
    await expectError(new Client(t).get('/api/auth/verify?token='), 422, /token/)
  })
})

describe('POST /api/auth/sendverify', () => {
  test('204 and a new link for a pending account (the older one stops working); 204 and no mail otherwise', async () => {
    const email = newEmail()
    const c = new Client(t)
    expect((await c.post('/api/auth/create', { email, password: 'password123' })).status).toBe(204)
    const first = verifyToken(await smtp.nextMail(email))
    expect((await c.post('/api/auth/sendverify', { email: email.toUpperCase() })).status).toBe(204)
    const second = verifyToken(await smtp.nextMail(email))
    expect(second).not.toBe(first)
    await expectError(c.get(`/api/auth/verify?token=${first}`), 400, 'Token is not valid.')
    expect((await c.get(`/api/auth/verify?token=${second}`)).status).toBe(204)
    // verified, or unknown: the same 204, no mail
    expect((await c.post('/api/auth/sendverify', { email })).status).toBe(204)
    const unknown = newEmail()
    expect((await c.post('/api/auth/sendverify', { email: unknown })).status).toBe(204)
    await Bun.sleep(200)
    expect(smtp.mailsTo(email)).toHaveLength(2)
    expect(smtp.mailsTo(unknown)).toHaveLength(0)
    expect(await expectError(c.post('/api/auth/sendverify', { email: 'nope' }), 422)).toContain('email')
  })
})
