import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { and, eq } from 'drizzle-orm'
import { Client, signUp, type TestApp } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { resetCode, createSmtpTestApp, type TestSmtp } from '../../tests/support/smtp.ts'
import { authTokens, users } from './tables.ts'

// bun's default is 5 s per test; password hashing and databases need more on a busy machine
setDefaultTimeout(30_000)

let smtp: TestSmtp
let t: TestApp
beforeAll(async () => ({ t, smtp } = await createSmtpTestApp()))
afterAll(() => t.close())

async function requestCode(email: string): Promise<string> {
  const res = await new Client(t).post('/api/auth/sendreset', { email })
  expect(res.status).toBe(204)
  return resetCode(await smtp.nextMail(email))
}

async function verifiedUser() {
  const user = await signUp(t)
  await smtp.nextMail(user.email) // the verification mail
  return user
}

describe('POST /api/auth/sendreset', () => {
  test('a verified account gets a short code by mail, valid 15 minutes', async () => {
    const { email } = await verifiedUser()
    const res = await new Client(t).post('/api/auth/sendreset', { email })
    expect(res.status).toBe(204)
    const mail = await smtp.nextMail(email)
    expect(mail.subject).toBe('Your Tunefeed password reset code')
    const code = resetCode(mail)
    expect(code).toMatch(/^[A-HJ-NP-Z2-9]{8}$/)
    expect(mail.text).toContain('15 minutes')
    const [user] = await t.ctx.db.select().from(users).where(eq(users.email, email))
    const [row] = await t.ctx.db
      .select()
      .from(authTokens)
      .where(and(eq(authTokens.userId, user!.id), eq(authTokens.kind, 'reset')))
    const minutes = (row!.expiresAt.getTime() - row!.createdAt.getTime()) / 60_000
    expect(minutes).toBeGreaterThan(14.9)
    expect(minutes).toBeLessThan(15.1)
  })

  test('204 and no mail for an unknown e-mail (no enumeration)', async () => {
    const known = await verifiedUser()
    const unknown = `nobody-${crypto.randomUUID().slice(0, 8)}@example.com`
    const a = await new Client(t).post('/api/auth/sendreset', { email: unknown })
    const b = await new Client(t).post('/api/auth/sendreset', { email: known.email })
    // same answer either way
    expect([a.status, await a.text()]).toEqual([204, ''])
    expect([b.status, await b.text()]).toEqual([204, ''])
    // the mail for the known account has arrived, so the SMTP server has seen everything that was sent
    await smtp.nextMail(known.email)
    expect(smtp.mailsTo(unknown)).toHaveLength(0)
  })

  test('204 and no mail for an unverified account', async () => {
    const email = `unverified-${crypto.randomUUID().slice(0, 8)}@example.com`
    const c = new Client(t)
    await c.post('/api/auth/create', { email, password: 'password123' })
    await smtp.nextMail(email)
    expect((await c.post('/api/auth/sendreset', { email })).status).toBe(204)
    expect(smtp.mailsTo(email)).toHaveLength(1)
  })

  test('422 for an invalid e-mail', async () => {
    await expectError(new Client(t).post('/api/auth/sendreset', { email: 'not-an-email' }), 422, /email/)
    await expectError(new Client(t).post('/api/auth/sendreset', {}), 422, /email/)
  })
})

describe('POST /api/auth/reset', () => {
  test('204: the password changes and every session of the user is revoked', async () => {
    const { client, email, password } = await verifiedUser()
    const other = new Client(t)
    expect((await other.post('/api/auth/login', { email, password })).status).toBe(200)
    // both sessions are in use (and so in the session cache) when the reset happens
    expect((await client.get('/api/auth/session')).status).toBe(200)
    expect((await other.get('/api/auth/session')).status).toBe(200)
    const code = await requestCode(email)
    const res = await new Client(t).post('/api/auth/reset', { token: code, password: 'brand-new-password' })
    expect(res.status).toBe(204)
    await expectError(client.get('/api/auth/session'), 401, 'Unauthorized')
    await expectError(other.get('/api/auth/session'), 401, 'Unauthorized')
    await expectError(new Client(t).post('/api/auth/login', { email, password }), 401, 'Incorrect email or password.')
    expect((await new Client(t).post('/api/auth/login', { email, password: 'brand-new-password' })).status).toBe(200)
  })

  test('the code is single use', async () => {
    const { email } = await verifiedUser()
    const code = await requestCode(email)
    expect((await new Client(t).post('/api/auth/reset', { token: code, password: 'first-new-password' })).status).toBe(204)
    await expectError(new Client(t).post('/api/auth/reset', { token: code, password: 'second-new-password' }), 400, 'Token is not valid.')
    expect((await new Client(t).post('/api/auth/login', { email, password: 'first-new-password' })).status).toBe(200)
  })

  test('the code is typed case-insensitively and with stray spaces', async () => {
    const { email } = await verifiedUser()
    const code = await requestCode(email)
    const res = await new Client(t).post('/api/auth/reset', { token: ` ${code.toLowerCase()} `, password: 'lower-case-code' })
    expect(res.status).toBe(204)
    expect((await new Client(t).post('/api/auth/login', { email, password: 'lower-case-code' })).status).toBe(200)
  })

  test('a code is expired after 15 minutes', async () => {
    const { email, password } = await verifiedUser()
    const code = await requestCode(email)
    const [user] = await t.ctx.db.select().from(users).where(eq(users.email, email))
    await t.ctx.db
      .update(authTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(and(eq(authTokens.userId, user!.id), eq(authTokens.kind, 'reset')))
    await expectError(new Client(t).post('/api/auth/reset', { token: code, password: 'never-applied' }), 400, 'Token is not valid.')
    expect((await new Client(t).post('/api/auth/login', { email, password })).status).toBe(200)
  })

  test('only the newest code is valid', async () => {
    const { email } = await verifiedUser()
    const first = await requestCode(email)
    const second = await requestCode(email)
    expect(second).not.toBe(first)
    await expectError(new Client(t).post('/api/auth/reset', { token: first, password: 'from-first-code' }), 400, 'Token is not valid.')
    expect((await new Client(t).post('/api/auth/reset', { token: second, password: 'from-second-code' })).status).toBe(204)
  })

  test('a verification token is not a reset code', async () => {
    const email = `fresh-${crypto.randomUUID().slice(0, 8)}@example.com`
    await new Client(t).post('/api/auth/create', { email, password: 'password123' })
    const token = /\/verify\/([a-z0-9]+)/.exec((await smtp.nextMail(email)).text)![1]!
    await expectError(new Client(t).post('/api/auth/reset', { token, password: 'password456' }), 400, 'Token is not valid.')
  })

  test('400 for an unknown code', async () => {
    await expectError(new Client(t).post('/api/auth/reset', { token: 'ABCDEFGH', password: 'password123' }), 400, 'Token is not valid.')
  })

  test('422 for a short password (and the code is not spent)', async () => {
    const { email } = await verifiedUser()
    const code = await requestCode(email)
    const detail = await expectError(new Client(t).post('/api/auth/reset', { token: code, password: 'short' }), 422)
    expect(detail).toContain('password')
    expect((await new Client(t).post('/api/auth/reset', { token: code, password: 'long-enough-now' })).status).toBe(204)
  })

  test('422 for a missing token', async () => {
    await expectError(new Client(t).post('/api/auth/reset', { password: 'password123' }), 422, /token/)
    await expectError(new Client(t).post('/api/auth/reset', { token: '   ', password: 'password123' }), 422, /token/)
  })
})
