import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { Client, createTestApp, serveTestApp, signUp } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import type { TestMedia } from '../../tests/support/media.ts'
import { type MusicTestApp, musicForm, startMusicTestApp, userIdOf, waitForJob } from '../../tests/support/music.ts'
import { updateUser } from '../admin/users.ts'
import type { MusicJobEvent } from '../music/schema.ts'
import type { ApiToken, CreatedApiToken } from './schema.ts'
import { apiTokens } from './tables.ts'

// API tokens against a real app, queue, ffmpeg and a real socket server.
setDefaultTimeout(60_000)

let t: MusicTestApp
let server: ReturnType<typeof Bun.serve>
let files: TestMedia
let alice: Client
let bob: Client

beforeAll(async () => {
  ;({ files, alice } = t = await startMusicTestApp())
  server = serveTestApp(t)
  bob = (await signUp(t)).client
}, 60_000)
afterAll(async () => {
  await server?.stop(true)
  await t?.close()
})

async function newToken(client: Client, name = 'phone'): Promise<CreatedApiToken> {
  const res = await client.post('/api/auth/tokens', { name })
  expect(res.status).toBe(201)
  return (await res.json()) as CreatedApiToken
}

/** A request with only the token (no cookie). */
function withToken(token: string, path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers)
  headers.set('authorization', `Bearer ${token}`)
  return t.app.request(path, { ...init, headers })
}

const listTokens = async (client: Client) => ((await (await client.get('/api/auth/tokens')).json()) as { tokens: ApiToken[] }).tokens

describe('creating and listing', () => {
  test('201 {id, name, token} once; only the SHA-256 is stored; listed with createdAt and lastUsedAt', async () => {
    const created = await newToken(alice, '  Shortcut  ')
    expect(Object.keys(created).sort()).toEqual(['id', 'name', 'token'])
    expect(created.name).toBe('Shortcut')
    expect(created.token).toMatch(/^tf_[a-z2-7]{32}$/)
    const [row] = await t.ctx.db.select().from(apiTokens).where(eq(apiTokens.id, created.id))
    expect(row!.hash).toBe(new Bun.CryptoHasher('sha256').update(created.token).digest('hex'))
    // the plain token is nowhere in the table
    const dump = await t.ctx.db.execute(sql`select row_to_json(a)::text as j from api_tokens a`)
    expect(JSON.stringify(dump)).not.toContain(created.token)

    const listed = (await listTokens(alice)).find((x) => x.id === created.id)!
    expect(listed).toEqual({ id: created.id, name: 'Shortcut', createdAt: expect.any(String), lastUsedAt: null, expiresAt: null })
    expect((await listTokens(bob)).map((x) => x.id)).not.toContain(created.id)

    expect((await withToken(created.token, '/api/auth/session')).status).toBe(200)
    const used = (await listTokens(alice)).find((x) => x.id === created.id)!
    expect(Date.parse(used.lastUsedAt!)).toBeGreaterThan(Date.now() - 10_000)
  })

  test('422 for a missing or too long name; 401 without a session', async () => {
    expect(await expectError(alice.post('/api/auth/tokens', { name: '  ' }), 422)).toContain('name')
    expect(await expectError(alice.post('/api/auth/tokens', { name: 'x'.repeat(101) }), 422)).toContain('name')
    await expectError(new Client(t).post('/api/auth/tokens', { name: 'x' }), 401, 'Unauthorized')
    await expectError(new Client(t).get('/api/auth/tokens'), 401, 'Unauthorized')
  })
})

describe('using a token', () => {
  test('creates a job and hears it on the listen socket; the job is the owner\'s', async () => {
    const { token } = await newToken(alice)
    const messages: MusicJobEvent[] = []
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api/music/jobs/listen`, {
      headers: { authorization: `Bearer ${token}` },
    } as unknown as string[])
    ws.onmessage = (e) => messages.push(JSON.parse(String(e.data)))
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve()
      ws.onerror = () => reject(new Error('socket refused'))
    })
    const form = musicForm({ title: 'By token', artist: 'Script', album: 'CLI' }, { path: files.wav })
    const res = await withToken(token, '/api/music/jobs/create', { method: 'POST', body: form })
    expect(res.status).toBe(201)
    const { id } = (await res.json()) as { id: string }
    const job = await waitForJob(alice, id)
    expect(job.completed).toBeTruthy()
    await Bun.sleep(50)
    expect(messages.filter((m) => 'id' in m && m.id === id).map((m) => m.status).at(-1)).toBe('COMPLETED')
    ws.close()
    // bob's session does not see it; bob's token does not either
    const bobToken = (await newToken(bob)).token
    const bobList = (await (await withToken(bobToken, '/api/music/jobs/list?page=1&per_page=50')).json()) as { jobs: { id: string }[] }
    expect(bobList.jobs.map((j) => j.id)).not.toContain(id)
    await expectError(withToken(bobToken, job.downloadUrl!), 404, 'Job not found.')
    await expectError(withToken(bobToken, `/api/music/jobs/${id}/delete`, { method: 'DELETE' }), 404, 'Job not found.')
    expect((await withToken(token, job.downloadUrl!)).status).toBe(200)
  })

  test('a bearer request skips the cookie CSRF check (no cookie is read); a cookie from another site does not', async () => {
    const { token } = await newToken(alice)
    const evil = { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' }
    const form = () => musicForm({ title: 'T', artist: 'A', album: 'B' }, { path: files.wav })
    expect((await withToken(token, '/api/music/jobs/create', { method: 'POST', body: form(), headers: evil })).status).toBe(201)
    await expectError(alice.request('/api/music/jobs/create', { method: 'POST', body: form(), headers: evil }), 403)
    // with a Bearer header the cookie is ignored: a bad token is 401 even beside a good cookie
    await expectError(
      alice.request('/api/music/jobs/list?page=1&per_page=5', { headers: { authorization: 'Bearer tf_not-a-token' } }),
      401,
      'Unauthorized',
    )
  })

  test('malformed or unknown tokens are 401 {detail}', async () => {
    for (const value of ['Bearer', 'Bearer ', 'Bearer x', `Bearer tf_${'a'.repeat(500)}`, 'bearer tf_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa']) {
      await expectError(t.app.request('/api/music/jobs/list?page=1&per_page=5', { headers: { authorization: value } }), 401, 'Unauthorized')
    }
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api/music/jobs/listen`, {
      headers: { authorization: 'Bearer tf_unknown' },
    } as unknown as string[])
    await expect(
      new Promise<void>((resolve, reject) => {
        ws.onopen = () => resolve()
        ws.onerror = () => reject(new Error('socket refused'))
      }),
    ).rejects.toThrow('socket refused')
  })

  test('refused (403) on the token, password, account and WebDAV-credential routes', async () => {
    const { token } = await newToken(alice)
    const json = (method: string, body: unknown): RequestInit => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const refused: [string, RequestInit][] = [
      ['/api/auth/tokens', {}],
      ['/api/auth/tokens', json('POST', { name: 'more' })],
      ['/api/auth/tokens/00000000-0000-0000-0000-000000000000', { method: 'DELETE' }],
      ['/api/auth/password', json('PUT', { currentPassword: 'correct horse', password: 'new password 1' })],
      ['/api/auth/account', json('DELETE', { password: 'correct horse' })],
      ['/api/webdav', {}],
      ['/api/webdav', json('POST', { url: 'http://127.0.0.1:1/', username: 'u', password: 'p' })],
      ['/api/webdav', { method: 'DELETE' }],
    ]
    for (const [path, init] of refused) {
      await expectError(withToken(token, path, init), 403, 'API tokens cannot be used here; sign in instead.')
    }
    // nothing changed: the password still signs in
    expect((await alice.get('/api/auth/session')).status).toBe(200)
  })

  test('rate limits still apply to bearer requests', async () => {
    const limited = await createTestApp({ env: { RATE_LIMIT_MAX: '2' } })
    try {
      const { client } = await signUp(limited)
      const { token } = (await (await client.post('/api/auth/tokens', { name: 'x' })).json()) as CreatedApiToken
      const send = () =>
        limited.app.request('/api/auth/sendreset', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'someone@example.com' }),
        })
      expect((await send()).status).toBe(204)
      expect((await send()).status).toBe(204)
      await expectError(send(), 429)
    } finally {
      await limited.close()
    }
  })
})

describe('revoking', () => {
  test('204, and the token stops at once; another user cannot revoke it (404)', async () => {
    const { id, token } = await newToken(alice)
    expect((await withToken(token, '/api/auth/session')).status).toBe(200)
    await expectError(bob.delete(`/api/auth/tokens/${id}`), 404, 'Token not found.')
    expect((await withToken(token, '/api/auth/session')).status).toBe(200)
    expect((await alice.delete(`/api/auth/tokens/${id}`)).status).toBe(204)
    await expectError(withToken(token, '/api/auth/session'), 401, 'Unauthorized')
    expect((await listTokens(alice)).map((x) => x.id)).not.toContain(id)
    await expectError(alice.delete(`/api/auth/tokens/${id}`), 404, 'Token not found.')
    await expectError(alice.delete('/api/auth/tokens/not-a-uuid'), 404, 'Token not found.')
  })
})

describe('a disabled user', () => {
  test("the user's tokens stop at once, and work again once re-enabled", async () => {
    const { client } = await signUp(t)
    const { token } = await newToken(client)
    const userId = await userIdOf(t, client)
    expect((await withToken(token, '/api/auth/session')).status).toBe(200)
    await updateUser(t.ctx.db, userId, { disabled: true })
    await expectError(withToken(token, '/api/auth/session'), 401, 'Unauthorized')
    await updateUser(t.ctx.db, userId, { disabled: false })
    expect((await withToken(token, '/api/auth/session')).status).toBe(200)
  })
})
