import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { Client, createTestApp, serveTestApp, signUp, type TestApp, waitForMail } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { until } from '../../tests/support/wait.ts'
import { apiTokenAlive } from './bearer.ts'
import type { ApiToken, CreatedApiToken } from './schema.ts'
import { apiTokens, users } from './tables.ts'

// API tokens after account recovery, their expiry, and the admin routes a token
// cannot reach (issue 25, findings 4 and 9). A real app and database; mails in the outbox.
setDefaultTimeout(60_000)

let t: TestApp
let server: ReturnType<typeof Bun.serve>
beforeAll(async () => {
  t = await createTestApp()
  server = serveTestApp(t)
})
afterAll(async () => {
  await server?.stop(true)
  await t?.close()
})

const DAY = 24 * 60 * 60 * 1000

async function newToken(client: Client, body: Record<string, unknown> = {}): Promise<CreatedApiToken> {
  const res = await client.post('/api/auth/tokens', { name: 'script', ...body })
  expect(res.status).toBe(201)
  return (await res.json()) as CreatedApiToken
}

const withToken = (token: string, path: string, init: RequestInit = {}) => {
  const headers = new Headers(init.headers)
  headers.set('authorization', `Bearer ${token}`)
  return t.app.request(path, { ...init, headers })
}
const works = async (token: string) => (await withToken(token, '/api/auth/session')).status === 200
const listTokens = async (client: Client) => ((await (await client.get('/api/auth/tokens')).json()) as { tokens: ApiToken[] }).tokens

/** A listen socket opened with the token; resolves with its close code. */
async function tokenSocket(token: string) {
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api/music/jobs/listen`, {
    headers: { authorization: `Bearer ${token}` },
  } as unknown as string[])
  const closed = new Promise<number>((resolve) => ws.addEventListener('close', (e) => resolve(e.code)))
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve()
    ws.onerror = () => reject(new Error('socket refused'))
  })
  return { ws, closed }
}

describe('a password reset', () => {
  test("revokes the user's API tokens (and closes their sockets); the mail says so", async () => {
    const { client, email } = await signUp(t)
    const other = await signUp(t)
    const { token } = await newToken(client)
    const kept = await newToken(other.client)
    const socket = await tokenSocket(token)
    const before = t.outbox.length
    expect((await new Client(t).post('/api/auth/sendreset', { email })).status).toBe(204)
    const mail = await waitForMail(t, email, { after: before })
    expect(mail.text).toContain('revokes your API tokens')
    expect(mail.html).toContain('revokes your API tokens')
    const code = /reset code is:\s*([A-Z0-9]+)/i.exec(mail.text)![1]!
    expect((await new Client(t).post('/api/auth/reset', { token: code, password: 'reset password 1' })).status).toBe(204)
    await expectError(withToken(token, '/api/auth/session'), 401, 'Unauthorized')
    expect(await socket.closed).toBe(4001)
    const [row] = await t.ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email))
    expect(await t.ctx.db.select().from(apiTokens).where(eq(apiTokens.userId, row!.id))).toEqual([])
    // another user's token is not touched
    expect(await works(kept.token)).toBe(true)
  })
})

describe('a password change', () => {
  test('revokes the tokens (sockets close); this session stays', async () => {
    const { client, password } = await signUp(t)
    const { token } = await newToken(client)
    const socket = await tokenSocket(token)
    expect((await client.put('/api/auth/password', { currentPassword: password, password: 'changed password 1' })).status).toBe(204)
    await expectError(withToken(token, '/api/auth/session'), 401, 'Unauthorized')
    expect(await socket.closed).toBe(4001)
    expect(await listTokens(client)).toEqual([])
    expect((await client.get('/api/auth/session')).status).toBe(200)
  })

  test('keepTokens: true keeps them, and their sockets stay open', async () => {
    const { client, password } = await signUp(t)
    const { id, token } = await newToken(client)
    const socket = await tokenSocket(token)
    let closed = false
    void socket.closed.then(() => (closed = true))
    const res = await client.put('/api/auth/password', { currentPassword: password, password: 'changed password 2', keepTokens: true })
    expect(res.status).toBe(204)
    expect(await works(token)).toBe(true)
    expect((await listTokens(client)).map((x) => x.id)).toEqual([id])
    // a request over the socket's lifetime later, it is still open
    expect(await works(token)).toBe(true)
    expect(closed).toBe(false)
    socket.ws.close()
    expect(await expectError(client.put('/api/auth/password', { currentPassword: 'changed password 2', password: 'x'.repeat(9), keepTokens: 'yes' }), 422)).toContain(
      'keepTokens',
    )
  })
})

describe('expiresAt', () => {
  test('optional at creation; listed (null when none); an ISO date means the end of that day (UTC)', async () => {
    const { client } = await signUp(t)
    const never = await newToken(client)
    const day = new Date(Date.now() + 30 * DAY).toISOString().slice(0, 10)
    const dated = await newToken(client, { name: 'dated', expiresAt: day })
    const exact = new Date(Date.now() + 2 * DAY)
    const timed = await newToken(client, { name: 'timed', expiresAt: exact.toISOString().replace('Z', '+00:00') })
    expect(Object.keys(dated).sort()).toEqual(['id', 'name', 'token'])
    const listed = new Map((await listTokens(client)).map((x) => [x.id, x]))
    expect(listed.get(never.id)!.expiresAt).toBeNull()
    expect(listed.get(dated.id)!.expiresAt).toBe(`${day}T23:59:59.999Z`)
    expect(listed.get(timed.id)!.expiresAt).toBe(exact.toISOString())
    expect((await newToken(client, { name: 'explicit never', expiresAt: null })).id).toBeTruthy()
    for (const t of [never, dated, timed]) expect(await works(t.token)).toBe(true)
  })

  test('422 naming expiresAt: not a date, in the past, now, or too far ahead', async () => {
    const { client } = await signUp(t)
    const bad = [
      'tomorrow',
      '2027-02-30',
      '2027-01-31T18:00:00', // no zone: which time is meant is unclear
      12345,
      new Date(Date.now() - 60_000).toISOString(),
      new Date(Date.now() - DAY).toISOString().slice(0, 10),
      new Date(Date.now() + 400 * DAY).toISOString(),
      '9999-12-31',
    ]
    for (const expiresAt of bad) {
      const detail = await expectError(client.post('/api/auth/tokens', { name: 'bad', expiresAt }), 422)
      expect(detail).toStartWith('expiresAt: ')
    }
    expect(await expectError(client.post('/api/auth/tokens', { name: 'bad', expiresAt: '2001-01-01' }), 422)).toBe('expiresAt: Must be in the future')
    expect(await listTokens(client)).toEqual([])
  })

  test('an expired token is refused like a revoked one (requests and sockets), and still listed', async () => {
    const { client } = await signUp(t)
    // one that expires while in use: refused from then on, though it was cached as valid
    const soon = await newToken(client, { expiresAt: new Date(Date.now() + 2_000).toISOString() })
    expect(await works(soon.token)).toBe(true)
    await until('the token to expire', async () => !(await works(soon.token)), 30_000)
    await expectError(withToken(soon.token, '/api/auth/session'), 401, 'Unauthorized')
    expect(await apiTokenAlive(t.ctx.db, soon.id)).toBe(false)
    // one whose date has passed (set in the database, as time passing would)
    const old = await newToken(client)
    await t.ctx.db.update(apiTokens).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(apiTokens.id, old.id))
    await expectError(withToken(old.token, '/api/music/jobs/list?page=1&per_page=5'), 401, 'Unauthorized')
    expect((await listTokens(client)).map((x) => x.id).sort()).toEqual([soon.id, old.id].sort())
  })
})

describe("an admin's API token", () => {
  test('403 on PATCH/DELETE /api/admin/users/{id} and PUT/DELETE /api/admin/tools/cookies; the session may', async () => {
    const admin = await signUp(t)
    await t.ctx.db.update(users).set({ admin: true }).where(eq(users.email, admin.email))
    const target = await signUp(t)
    const [row] = await t.ctx.db.select({ id: users.id }).from(users).where(eq(users.email, target.email))
    const { token } = await newToken(admin.client)
    const json = (method: string, body: unknown): RequestInit => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const cookies = '# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tTRUE\t2147483647\tSID\tsecret\n'
    const refused: [string, RequestInit][] = [
      [`/api/admin/users/${row!.id}`, json('PATCH', { admin: true })],
      [`/api/admin/users/${row!.id}`, json('PATCH', { disabled: true })],
      [`/api/admin/users/${row!.id}`, { method: 'DELETE' }],
      ['/api/admin/tools/cookies', { method: 'PUT', body: cookies }],
      ['/api/admin/tools/cookies', { method: 'DELETE' }],
    ]
    for (const [path, init] of refused) {
      await expectError(withToken(token, path, init), 403, 'API tokens cannot be used here; sign in instead.')
    }
    const [after] = await t.ctx.db.select().from(users).where(eq(users.id, row!.id))
    expect({ admin: after!.admin, disabled: after!.disabledAt }).toEqual({ admin: false, disabled: null })
    // reading stays open to the token; the session can do the changes
    expect((await withToken(token, `/api/admin/users/${row!.id}`)).status).toBe(200)
    expect((await admin.client.request('/api/admin/tools/cookies', { method: 'PUT', body: cookies })).status).toBe(200)
    expect((await admin.client.request('/api/admin/tools/cookies', { method: 'DELETE' })).status).toBe(204)
    expect((await admin.client.request(`/api/admin/users/${row!.id}`, { method: 'PATCH', json: { disabled: true } })).status).toBe(200)
    expect((await admin.client.request(`/api/admin/users/${row!.id}`, { method: 'DELETE' })).status).toBe(204)
  })
})
