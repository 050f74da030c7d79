import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { Client, createTestApp, signUp, type TestApp } from '../../tests/support/app.ts'
import { expectError, setCookie } from '../../tests/support/http.ts'
import { signInAtProvider, startOidcProvider, type TestOidc } from '../../tests/support/oidc.ts'
import { updateUser } from '../admin/users.ts'
import { sessions, userIdentities, users } from './tables.ts'

// Sign-in through a real OpenID provider (oidc-provider on 127.0.0.1), driven
// through its own login and consent forms. app.request() runs at http://localhost.
setDefaultTimeout(60_000)

const CALLBACK = 'http://localhost/api/auth/oidc/default/callback'
let idp: TestOidc
let t: TestApp

beforeAll(async () => {
  idp = await startOidcProvider([CALLBACK])
  t = await createTestApp({
    env: { OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: idp.clientId, OIDC_CLIENT_SECRET: idp.clientSecret, OIDC_NAME: 'Test ID' },
  })
})
afterAll(async () => {
  await t?.close()
  await idp?.stop()
})

const newEmail = () => `oidc-${crypto.randomUUID().slice(0, 8)}@example.com`

/** A provider user; returns its login (the `sub`). */
function idpUser(email: string, emailVerified = true) {
  const login = `sub-${crypto.randomUUID().slice(0, 8)}`
  idp.users.set(login, { email, emailVerified })
  return login
}

/** GET …/start: the attempt cookie and the provider URL. */
async function start(next?: string) {
  const res = await t.app.request(`/api/auth/oidc/default/start${next === undefined ? '' : `?next=${encodeURIComponent(next)}`}`)
  expect(res.status).toBe(302)
  const attempt = setCookie(res, 'tunefeed_oidc')!
  expect(attempt.attrs).toMatchObject({ httponly: true, samesite: 'Lax', path: '/api/auth/oidc/' })
  return { cookie: `tunefeed_oidc=${attempt.value}`, location: new URL(res.headers.get('location')!) }
}

/** GET …/callback as the browser would after the provider; `{status, location, session}`. */
async function callback(url: URL | string, cookie: string) {
  const u = new URL(url)
  const res = await t.app.request(`${u.pathname}${u.search}`, { headers: { cookie } })
  return { status: res.status, location: res.headers.get('location'), session: setCookie(res, 'tunefeed_session')?.value || null }
}

async function whoIs(session: string | null) {
  const res = await t.app.request('/api/auth/session', { headers: { cookie: `tunefeed_session=${session}` } })
  return res.status === 200 ? ((await res.json()) as { email: string }).email : null
}

/** The whole flow for one provider login. */
async function signIn(login: string, next?: string) {
  const { cookie, location } = await start(next)
  return callback(await signInAtProvider(location.toString(), login), cookie)
}

describe('GET /api/auth/providers', () => {
  test('the configured provider; none without OIDC_ISSUER', async () => {
    expect(await (await t.app.request('/api/auth/providers')).json()).toEqual({
      providers: [{ id: 'default', name: 'Test ID' }],
      passwordSignup: true,
      mail: 'file',
    })
    const plain = await createTestApp()
    try {
      expect(await (await plain.app.request('/api/auth/providers')).json()).toEqual({ providers: [], passwordSignup: true, mail: 'file' })
      await expectError(plain.app.request('/api/auth/oidc/default/start'), 404, 'Provider not found.')
    } finally {
      await plain.close()
    }
    await expectError(t.app.request('/api/auth/oidc/other/start'), 404, 'Provider not found.')
  })

  test('mail: smtp with SMTP_URL (where a sign-up link goes, for the sign-up form)', async () => {
    const mailing = await createTestApp({ smtpUrl: 'smtp://127.0.0.1:9' })
    try {
      expect(await (await mailing.app.request('/api/auth/providers')).json()).toMatchObject({ mail: 'smtp' })
    } finally {
      await mailing.close()
    }
  })
})

describe('signing in', () => {
  test('the authorization request: code flow with PKCE (S256), state, nonce, openid email scope', async () => {
    const { location } = await start()
    expect(location.origin).toBe(idp.issuer)
    const p = location.searchParams
    expect(p.get('response_type')).toBe('code')
    expect(p.get('client_id')).toBe(idp.clientId)
    expect(p.get('redirect_uri')).toBe(CALLBACK)
    expect(p.get('code_challenge_method')).toBe('S256')
    expect(p.get('code_challenge')).toMatch(/^[\w-]{43}$/)
    expect(p.get('state')!.length).toBeGreaterThan(20)
    expect(p.get('nonce')!.length).toBeGreaterThan(20)
    expect(p.get('scope')).toBe('openid email')
  })

  test('a new verified e-mail creates a verified account without a password and signs in to `next`', async () => {
    const email = newEmail()
    const result = await signIn(idpUser(email), '/music?tab=jobs')
    expect(result.status).toBe(302)
    expect(result.location).toBe('/music?tab=jobs')
    expect(await whoIs(result.session)).toBe(email)
    const [row] = await t.ctx.db.select().from(users).where(eq(users.email, email))
    expect(row!.verifiedAt).toBeInstanceOf(Date)
    expect(row!.passwordHash).toBeNull()
    expect(await t.ctx.db.select().from(userIdentities).where(eq(userIdentities.userId, row!.id))).toHaveLength(1)
    // no password to sign in with
    await expectError(new Client(t).post('/api/auth/login', { email, password: 'anything at all' }), 401, 'Incorrect email or password.')
  })

  test('an existing password account with that e-mail is not signed into nor linked: back to /login with `exists`', async () => {
    const { email, password } = await signUp(t)
    const [before] = await t.ctx.db.select().from(users).where(eq(users.email, email))
    const result = await signIn(idpUser(email))
    expect(result).toEqual({ status: 302, location: '/login?oidc_error=exists', session: null })
    expect(await t.ctx.db.select().from(userIdentities).where(eq(userIdentities.userId, before!.id))).toEqual([])
    // the account is as it was: one row, its password still signs in
    expect(await t.ctx.db.select().from(users).where(eq(users.email, email))).toHaveLength(1)
    expect((await new Client(t).post('/api/auth/login', { email, password })).status).toBe(200)
  })

  test("the admin's e-mail asserted in upper case: nobody is signed in, nothing is linked or created", async () => {
    const admin = await signUp(t)
    await t.ctx.db.update(users).set({ admin: true }).where(eq(users.email, admin.email))
    const login = idpUser(admin.email.toUpperCase())
    const result = await signIn(login)
    expect(result).toEqual({ status: 302, location: '/login?oidc_error=exists', session: null })
    const rows = await t.ctx.db.select().from(users).where(sql`lower(${users.email}) = ${admin.email}`)
    expect(rows).toHaveLength(1)
    expect(await t.ctx.db.select().from(userIdentities).where(eq(userIdentities.subject, login))).toEqual([])
    // and again (a second try does not slip through)
    expect((await signIn(login)).session).toBeNull()
  })

  test('a pending (unverified) password account with that e-mail is replaced, its password stops working', async () => {
    const email = newEmail()
    expect((await new Client(t).post('/api/auth/create', { email, password: 'squatter-pass' })).status).toBe(204)
    const result = await signIn(idpUser(email))
    expect(await whoIs(result.session)).toBe(email)
    const rows = await t.ctx.db.select().from(users).where(eq(users.email, email))
    expect(rows).toHaveLength(1)
    expect(rows[0]!.verifiedAt).toBeInstanceOf(Date)
    await expectError(new Client(t).post('/api/auth/login', { email, password: 'squatter-pass' }), 401, 'Incorrect email or password.')
  })
})

/** GET …/start?link=1 with the client's session cookie (Client's one-cookie jar would keep the attempt cookie instead). */
const startLink = (client: Client) => t.app.request('/api/auth/oidc/default/start?link=1', { headers: { cookie: client.cookie } })

describe('linking from the Account page', () => {
  /** GET …/start?link=1 with the signed-in client's cookie; the callback carries both cookies, as a browser would. */
  async function link(client: Client, login: string) {
    const res = await startLink(client)
    expect(res.status).toBe(302)
    const attempt = `tunefeed_oidc=${setCookie(res, 'tunefeed_oidc')!.value}`
    const back = await signInAtProvider(res.headers.get('location')!, login)
    const r = await t.app.request(`${back.pathname}${back.search}`, { headers: { cookie: `${attempt}; ${client.cookie}` } })
    return { status: r.status, location: r.headers.get('location'), session: setCookie(r, 'tunefeed_session')?.value || null }
  }

  test('the owner links while signed in; from then on the provider signs into that account, by subject', async () => {
    const { client, email, password } = await signUp(t)
    const login = idpUser(email.toUpperCase())
    expect((await signIn(login)).location).toBe('/login?oidc_error=exists')
    expect(await (await client.get('/api/auth/identities')).json()).toEqual({ identities: [] })
    // no new session is made: the signed-in one goes on
    expect(await link(client, login)).toEqual({ status: 302, location: '/account?oidc_linked=1', session: null })
    const listed = (await (await client.get('/api/auth/identities')).json()) as { identities: { provider: string; name: string; createdAt: string }[] }
    expect(listed.identities).toEqual([{ provider: 'default', name: 'Test ID', createdAt: expect.any(String) }])
    const first = await signIn(login)
    expect(first.location).toBe('/')
    expect(await whoIs(first.session)).toBe(email)
    // the provider's e-mail changes: the link by subject still signs into the same account; the password still works
    idp.users.set(login, { email: newEmail(), emailVerified: true })
    expect(await whoIs((await signIn(login)).session)).toBe(email)
    expect((await new Client(t).post('/api/auth/login', { email, password })).status).toBe(200)
    // linking the same identity again is fine
    expect((await link(client, login)).location).toBe('/account?oidc_linked=1')
  })

  test("an identity linked to another account is not moved (`taken`); the provider's e-mail does not matter for a link", async () => {
    const owner = await signUp(t)
    const login = idpUser(newEmail())
    expect((await link(owner.client, login)).location).toBe('/account?oidc_linked=1')
    const other = await signUp(t)
    expect(await link(other.client, login)).toEqual({ status: 302, location: '/account?oidc_error=taken', session: null })
    expect(await whoIs((await signIn(login)).session)).toBe(owner.email)
    expect(await (await other.client.get('/api/auth/identities')).json()).toEqual({ identities: [] })
  })

  test('a link started from another site is refused (403, no redirect, no attempt); from this site it goes to the provider', async () => {
    const { client } = await signUp(t)
    const from = (headers: Record<string, string>) => t.app.request('/api/auth/oidc/default/start?link=1', { headers: { cookie: client.cookie, ...headers } })
    const refusals: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      // an older browser without Sec-Fetch-Site: a foreign Origin or Referer
      { origin: 'http://evil.example' },
      { referer: 'http://evil.example/attack.html' },
      { origin: 'null' },
    ]
    for (const headers of refusals) {
      const res = await from(headers)
      expect(res.status).toBe(403)
      expect(res.headers.get('location')).toBeNull()
      expect(setCookie(res, 'tunefeed_oidc')).toBeUndefined()
      expect(await res.json()).toEqual({ detail: 'Linking must be started from the Account page of this site.' })
    }
    const allowed: Record<string, string>[] = [{ 'sec-fetch-site': 'same-origin' }, { 'sec-fetch-site': 'none' }, { referer: 'http://localhost/account' }, {}]
    for (const headers of allowed) {
      const res = await from(headers)
      expect(res.status).toBe(302)
      expect(res.headers.get('location')).toStartWith(`${idp.issuer}/`)
    }
    // a link started from this site still links
    const login = idpUser(newEmail())
    const res = await from({ 'sec-fetch-site': 'same-origin' })
    const attempt = `tunefeed_oidc=${setCookie(res, 'tunefeed_oidc')!.value}`
    const back = await signInAtProvider(res.headers.get('location')!, login)
    const r = await t.app.request(`${back.pathname}${back.search}`, { headers: { cookie: `${attempt}; ${client.cookie}` } })
    expect(r.headers.get('location')).toBe('/account?oidc_linked=1')
    // signing in (not linking) may start anywhere: a provider button on another page is harmless
    expect((await t.app.request('/api/auth/oidc/default/start', { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(302)
  })

  test('link=1 needs a signed-in session: 401 without one, 403 with an API token; a session that ended meanwhile links nothing', async () => {
    await expectError(t.app.request('/api/auth/oidc/default/start?link=1'), 401, 'Unauthorized')
    await expectError(t.app.request('/api/auth/identities'), 401, 'Unauthorized')
    const { client } = await signUp(t)
    const { token } = (await (await client.post('/api/auth/tokens', { name: 'script' })).json()) as { token: string }
    await expectError(t.app.request('/api/auth/oidc/default/start?link=1', { headers: { authorization: `Bearer ${token}` } }), 403)
    expect(await expectError(client.request('/api/auth/oidc/default/start?link=yes'), 422)).toContain('link')
    // signed out between start and callback
    const res = await startLink(client)
    const attempt = `tunefeed_oidc=${setCookie(res, 'tunefeed_oidc')!.value}`
    const login = idpUser(newEmail())
    const back = await signInAtProvider(res.headers.get('location')!, login)
    const stale = client.cookie
    expect((await client.request('/api/auth/logout', { method: 'DELETE' })).status).toBe(200)
    const r = await t.app.request(`${back.pathname}${back.search}`, { headers: { cookie: `${attempt}; ${stale}` } })
    expect(r.headers.get('location')).toBe('/login?oidc_error=state')
    expect(await t.ctx.db.select().from(userIdentities).where(eq(userIdentities.subject, login))).toEqual([])
  })
})

describe('unlinking from the Account page', () => {
  test('a linked provider is unlinked: it no longer signs into the account, the password still does', async () => {
    const { client, email, password } = await signUp(t)
    const login = idpUser(email)
    const res = await startLink(client)
    const back = await signInAtProvider(res.headers.get('location')!, login)
    await t.app.request(`${back.pathname}${back.search}`, { headers: { cookie: `tunefeed_oidc=${setCookie(res, 'tunefeed_oidc')!.value}; ${client.cookie}` } })
    expect(await whoIs((await signIn(login)).session)).toBe(email)
    const removed = await client.request('/api/auth/identities/default', { method: 'DELETE' })
    expect(removed.status).toBe(204)
    expect(await (await client.get('/api/auth/identities')).json()).toEqual({ identities: [] })
    // the e-mail has an account that is not linked any more: nobody is signed in
    expect((await signIn(login)).location).toBe('/login?oidc_error=exists')
    expect((await new Client(t).post('/api/auth/login', { email, password })).status).toBe(200)
    await expectError(client.request('/api/auth/identities/default', { method: 'DELETE' }), 404, 'Identity not found.')
  })

  test("a provider-made account keeps its only way in (409) until it has a password; another user's link is not touched", async () => {
    const made = newEmail()
    const login = idpUser(made)
    const first = await signIn(login)
    const owner = new Client(t)
    owner.cookie = `tunefeed_session=${first.session}`
    const refused = await expectError(owner.request('/api/auth/identities/default', { method: 'DELETE' }), 409)
    expect(refused).toContain('only way into this account')
    expect(refused).toContain('set a password first')
    expect(await whoIs((await signIn(login)).session)).toBe(made)
    // another account asking to unlink its own (absent) link changes nothing of this one
    const other = await signUp(t)
    await expectError(other.client.request('/api/auth/identities/default', { method: 'DELETE' }), 404, 'Identity not found.')
    expect(await whoIs((await signIn(login)).session)).toBe(made)
    // with a password set, the link can go
    const [row] = await t.ctx.db.select().from(users).where(eq(users.email, made))
    await t.ctx.db.update(users).set({ passwordHash: await Bun.password.hash('a-password-now', { algorithm: 'argon2id' }) }).where(eq(users.id, row!.id))
    expect((await owner.request('/api/auth/identities/default', { method: 'DELETE' })).status).toBe(204)
    expect((await new Client(t).post('/api/auth/login', { email: made, password: 'a-password-now' })).status).toBe(200)
  })

  test('needs a session: 401 without one, 403 with an API token', async () => {
    await expectError(t.app.request('/api/auth/identities/default', { method: 'DELETE' }), 401, 'Unauthorized')
    const { client } = await signUp(t)
    const { token } = (await (await client.post('/api/auth/tokens', { name: 'script' })).json()) as { token: string }
    await expectError(t.app.request('/api/auth/identities/default', { method: 'DELETE', headers: { authorization: `Bearer ${token}` } }), 403)
  })
})

describe('a disabled user', () => {
  test('gets no session from the provider', async () => {
    const { client, email } = await signUp(t)
    const login = idpUser(email)
    const res = await startLink(client)
    const back = await signInAtProvider(res.headers.get('location')!, login)
    await t.app.request(`${back.pathname}${back.search}`, { headers: { cookie: `tunefeed_oidc=${setCookie(res, 'tunefeed_oidc')!.value}; ${client.cookie}` } })
    expect(await whoIs((await signIn(login)).session)).toBe(email)
    const [row] = await t.ctx.db.select().from(users).where(eq(users.email, email))
    await updateUser(t.ctx.db, row!.id, { disabled: true })
    expect(await signIn(login)).toEqual({ status: 302, location: '/login?oidc_error=disabled', session: null })
    expect(await t.ctx.db.select().from(sessions).where(eq(sessions.userId, row!.id))).toEqual([])
    // a provider-made account too
    const made = newEmail()
    const madeLogin = idpUser(made)
    expect(await whoIs((await signIn(madeLogin)).session)).toBe(made)
    const [madeRow] = await t.ctx.db.select().from(users).where(eq(users.email, made))
    await updateUser(t.ctx.db, madeRow!.id, { disabled: true })
    expect((await signIn(madeLogin)).location).toBe('/login?oidc_error=disabled')
  })
})

describe('refused', () => {
  test('an unverified provider e-mail: back to the login page with a reason, no account', async () => {
    const email = newEmail()
    const result = await signIn(idpUser(email, false))
    expect(result).toEqual({ status: 302, location: '/login?oidc_error=unverified', session: null })
    expect(await t.ctx.db.select().from(users).where(eq(users.email, email))).toEqual([])
  })

  test('a tampered or missing state, or a replayed callback', async () => {
    const login = idpUser(newEmail())
    const { cookie, location } = await start()
    const back = await signInAtProvider(location.toString(), login)
    const tampered = new URL(back)
    tampered.searchParams.set('state', `${back.searchParams.get('state')}x`)
    expect(await callback(tampered, cookie)).toEqual({ status: 302, location: '/login?oidc_error=state', session: null })
    // without the attempt cookie (another browser) or with a forged one
    expect((await callback(back, '')).location).toBe('/login?oidc_error=state')
    expect((await callback(back, 'tunefeed_oidc=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).location).toBe('/login?oidc_error=state')
    // the real one still works once, since the code was not spent
    const ok = await callback(back, cookie)
    expect(ok.location).toBe('/')
    expect(ok.session).toBeTruthy()
  })

  test('an ID token with another nonce (the request was altered on the way)', async () => {
    const { cookie, location } = await start()
    location.searchParams.set('nonce', 'nonce-from-somewhere-else-0123456789')
    const result = await callback(await signInAtProvider(location.toString(), idpUser(newEmail())), cookie)
    expect(result).toEqual({ status: 302, location: '/login?oidc_error=failed', session: null })
  })

  test('an ID token that is expired, for another client, from another issuer, or signed with a key the provider did not publish', async () => {
    try {
      for (const mode of ['expired', 'other-audience', 'other-issuer', 'foreign-key'] as const) {
        idp.idTokens = mode
        const email = newEmail()
        expect(await signIn(idpUser(email))).toEqual({ status: 302, location: '/login?oidc_error=failed', session: null })
        expect(await t.ctx.db.select().from(users).where(eq(users.email, email))).toEqual([])
      }
    } finally {
      idp.idTokens = 'normal'
    }
  })

  test('an off-site `next` is refused before anything starts (422)', async () => {
    for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)', 'music', '/\u0000x']) {
      expect(await expectError(t.app.request(`/api/auth/oidc/default/start?next=${encodeURIComponent(next)}`), 422)).toContain('next')
    }
  })

  test('the user cancelled at the provider', async () => {
    const { cookie, location } = await start()
    const back = new URL(CALLBACK)
    back.searchParams.set('error', 'access_denied')
    back.searchParams.set('state', location.searchParams.get('state')!)
    expect(await callback(back, cookie)).toEqual({ status: 302, location: '/login?oidc_error=denied', session: null })
  })

  test('an unreachable provider: back to the login page', async () => {
    const down = await createTestApp({ env: { OIDC_ISSUER: 'http://127.0.0.1:9/', OIDC_CLIENT_ID: 'x' } })
    try {
      const res = await down.app.request('/api/auth/oidc/default/start')
      expect(res.status).toBe(302)
      expect(res.headers.get('location')).toBe('/login?oidc_error=unavailable')
    } finally {
      await down.close()
    }
  })
})
