import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { Client, createTestApp, signUp, type TestApp } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { startAcceptingDav, startRcloneWebdav, startWebdavServer, type TestWebdav } from '../../tests/support/webdav.ts'
import { users } from '../auth/tables.ts'
import { createApp } from '../app.ts'
import { Cipher } from '../lib/secret.ts'
import { webdavAccounts } from './tables.ts'

/** The `x-error-kind` of a failed save (400 `Error connecting to webdav server.`). */
async function kindOf(res: Promise<Response>): Promise<string | null> {
  const r = await res
  expect(r.status).toBe(400)
  return r.headers.get('x-error-kind')
}

// bun's default is 5 s per test; password hashing and databases need more on a busy machine
setDefaultTimeout(30_000)

let t: TestApp
let dav: TestWebdav
beforeAll(async () => {
  t = await createTestApp({ env: { FETCH_ALLOW_HOSTS: '127.0.0.1' } })
  dav = await startWebdavServer()
})
afterAll(async () => {
  await t.close()
  await dav.stop()
})

const account = (server: TestWebdav) => ({ username: server.username, password: server.password, url: server.url })

async function storedRow(email: string) {
  const [user] = await t.ctx.db.select().from(users).where(eq(users.email, email))
  const [row] = await t.ctx.db.select().from(webdavAccounts).where(eq(webdavAccounts.userId, user!.id))
  return row
}

describe('/api/webdav', () => {
  test('401 Unauthorized for every method without a session, before validation', async () => {
    const c = new Client(t)
    await expectError(c.get('/api/webdav'), 401, 'Unauthorized')
    await expectError(c.post('/api/webdav', { nonsense: true }), 401, 'Unauthorized')
    await expectError(c.delete('/api/webdav'), 401, 'Unauthorized')
  })

  test('GET is 404 WebDAV not found. before anything is saved', async () => {
    const { client } = await signUp(t)
    await expectError(client.get('/api/webdav'), 404, 'WebDAV not found.')
  })

  test('POST checks the real server, saves and echoes the body; GET returns it', async () => {
    const { client } = await signUp(t)
    const body = account(dav)
    const res = await client.post('/api/webdav', body)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual(body)
    const got = await client.get('/api/webdav')
    expect(got.status).toBe(200)
    expect(await got.json()).toEqual(body)
  })

  test('a sub-folder URL works; extra fields are not echoed or stored', async () => {
    const { client, email } = await signUp(t)
    const mk = await fetch(new URL('Music/', dav.url), {
      method: 'MKCOL',
      headers: { authorization: `Basic ${btoa(`${dav.username}:${dav.password}`)}` },
    })
    expect(mk.status).toBe(201)
    const body = { ...account(dav), url: new URL('Music/', dav.url).href }
    const res = await client.post('/api/webdav', { ...body, admin: true, userId: 'someone-else' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual(body)
    expect((await storedRow(email))!.url).toBe(body.url)
  })

  test('the password is encrypted at rest (AES-GCM, fresh IV each save)', async () => {
    const { client, email } = await signUp(t)
    await client.post('/api/webdav', account(dav))
    const first = (await storedRow(email))!
    expect(first.passwordEnc).not.toBe(dav.password)
    expect(first.passwordEnc).not.toContain(dav.password)
    expect(Buffer.from(first.passwordEnc, 'base64').toString('latin1')).not.toContain(dav.password)
    expect(await t.ctx.cipher.decrypt(first.passwordEnc)).toBe(dav.password)
    expect(first.username).toBe(dav.username)
    // saving the same password again gives another ciphertext
    await client.post('/api/webdav', account(dav))
    const second = (await storedRow(email))!
    expect(second.passwordEnc).not.toBe(first.passwordEnc)
    expect(await t.ctx.cipher.decrypt(second.passwordEnc)).toBe(dav.password)
  })

  test('bad credentials: 400 Error connecting to webdav server. and nothing saved', async () => {
    const { client } = await signUp(t)
    await expectError(
      client.post('/api/webdav', { ...account(dav), password: 'wrong-password' }),
      400,
      'Error connecting to webdav server.',
    )
    await expectError(client.post('/api/webdav', { ...account(dav), username: 'someone' }), 400, 'Error connecting to webdav server.')
    await expectError(client.get('/api/webdav'), 404, 'WebDAV not found.')
    // the same detail; why, for the form, in x-error-kind
    expect(await kindOf(client.post('/api/webdav', { ...account(dav), password: 'wrong-password' }))).toBe('sign_in_refused')
  })

  test('a failed save keeps the previous account', async () => {
    const { client } = await signUp(t)
    await client.post('/api/webdav', account(dav))
    await expectError(client.post('/api/webdav', { ...account(dav), password: 'nope' }), 400)
    expect(await (await client.get('/api/webdav')).json()).toEqual(account(dav))
  })

  test('400 for a missing folder, a server that is not WebDAV, or nothing listening', async () => {
    const { client } = await signUp(t)
    await expectError(client.post('/api/webdav', { ...account(dav), url: new URL('no/such/folder/', dav.url).href }), 400)
    const plain = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('hello') })
    const closed = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('') })
    const closedPort = closed.port
    closed.stop(true)
    try {
      await expectError(client.post('/api/webdav', { ...account(dav), url: `http://127.0.0.1:${plain.port}/` }), 400, 'Error connecting to webdav server.')
      await expectError(client.post('/api/webdav', { ...account(dav), url: `http://127.0.0.1:${closedPort}/` }), 400, 'Error connecting to webdav server.')
      expect(await kindOf(client.post('/api/webdav', { ...account(dav), url: new URL('no/such/folder/', dav.url).href }))).toBe('not_found')
      expect(await kindOf(client.post('/api/webdav', { ...account(dav), url: `http://127.0.0.1:${plain.port}/` }))).toBe('not_webdav')
      expect(await kindOf(client.post('/api/webdav', { ...account(dav), url: `http://127.0.0.1:${closedPort}/` }))).toBe('unreachable')
    } finally {
      plain.stop(true)
    }
  })

  test('a WebDAV server that redirects is refused (no redirects are followed)', async () => {
    const { client } = await signUp(t)
    const redirect = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => Response.redirect(dav.url, 301) })
    try {
      await expectError(client.post('/api/webdav', { ...account(dav), url: `http://127.0.0.1:${redirect.port}/` }), 400)
      expect(await kindOf(client.post('/api/webdav', { ...account(dav), url: `http://127.0.0.1:${redirect.port}/` }))).toBe('redirected')
    } finally {
      redirect.stop(true)
    }
  })

  test('works against rclone serve webdav (an external process)', async () => {
    const rclone = await startRcloneWebdav()
    try {
      const { client, email } = await signUp(t)
      await expectError(client.post('/api/webdav', { ...account(rclone), password: 'wrong' }), 400, 'Error connecting to webdav server.')
      const res = await client.post('/api/webdav', account(rclone))
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual(account(rclone))
      expect((await storedRow(email))!.url).toBe(rclone.url)
    } finally {
      await rclone.stop()
    }
  })

  test('DELETE is 204, GET is 404 afterwards, and a second DELETE is still 204', async () => {
    const { client, email } = await signUp(t)
    await client.post('/api/webdav', account(dav))
    const res = await client.delete('/api/webdav')
    expect(res.status).toBe(204)
    expect(await res.text()).toBe('')
    expect(await storedRow(email)).toBeUndefined()
    await expectError(client.get('/api/webdav'), 404, 'WebDAV not found.')
    expect((await client.delete('/api/webdav')).status).toBe(204)
  })

  test('one user cannot read, change or delete another user\'s account', async () => {
    const a = await signUp(t)
    const b = await signUp(t)
    await a.client.post('/api/webdav', account(dav))
    await expectError(b.client.get('/api/webdav'), 404, 'WebDAV not found.')
    expect((await b.client.delete('/api/webdav')).status).toBe(204)
    expect(await (await a.client.get('/api/webdav')).json()).toEqual(account(dav))

    const other = await startWebdavServer({ username: 'bee', password: 'bee-password' })
    try {
      expect((await b.client.post('/api/webdav', account(other))).status).toBe(200)
      expect(await (await a.client.get('/api/webdav')).json()).toEqual(account(dav))
      expect(await (await b.client.get('/api/webdav')).json()).toEqual(account(other))
    } finally {
      await other.stop()
    }
  })

  test('422 for invalid bodies, naming the field', async () => {
    const { client } = await signUp(t)
    const base = account(dav)
    await expectError(client.post('/api/webdav', { ...base, url: 'ftp://127.0.0.1/' }), 422, /url/)
    await expectError(client.post('/api/webdav', { ...base, url: 'file:///etc/passwd' }), 422, /url/)
    await expectError(client.post('/api/webdav', { ...base, url: 'not a url' }), 422, /url/)
    await expectError(client.post('/api/webdav', { ...base, username: '' }), 422, /username/)
    await expectError(client.post('/api/webdav', { ...base, password: 42 }), 422, /password/)
    await expectError(client.post('/api/webdav', { username: base.username }), 422, /password/)
    await expectError(client.post('/api/webdav', { ...base, url: `http://127.0.0.1/${'a'.repeat(3000)}` }), 422, /url/)
  })
})

describe('outbound guard on WebDAV URLs', () => {
  let strict: TestApp
  let fake: ReturnType<typeof startAcceptingDav>
  beforeAll(async () => {
    strict = await createTestApp() // FETCH_ALLOW_HOSTS unset: loopback is off limits
    fake = startAcceptingDav()
  })
  afterAll(async () => {
    fake.stop()
    await strict.close()
  })

  test('a loopback WebDAV URL is refused with 400 and never contacted', async () => {
    const { client } = await signUp(strict)
    for (const url of [
      `http://127.0.0.1:${fake.port}/`,
      `http://localhost:${fake.port}/`,
      `http://[::ffff:127.0.0.1]:${fake.port}/`,
      `http://2130706433:${fake.port}/`,
      dav.url,
    ]) {
      await expectError(client.post('/api/webdav', { username: 'u', password: 'p', url }), 400, 'Error connecting to webdav server.')
    }
    expect(fake.hits).toBe(0)
    expect(await kindOf(client.post('/api/webdav', { username: 'u', password: 'p', url: dav.url }))).toBe('refused_address')
    await expectError(client.get('/api/webdav'), 404, 'WebDAV not found.')
  })

  test('the same server is reachable once allow-listed (control)', async () => {
    const open = await createTestApp({ env: { FETCH_ALLOW_HOSTS: '127.0.0.1/32' } })
    try {
      const { client } = await signUp(open)
      expect((await client.post('/api/webdav', { username: 'u', password: 'p', url: `http://127.0.0.1:${fake.port}/` })).status).toBe(200)
      expect(fake.hits).toBe(1)
    } finally {
      await open.close()
    }
  })

  test('a password saved under another secret: 409 asking to enter the account again, which then works', async () => {
    const { client } = await signUp(t)
    await client.post('/api/webdav', account(dav))
    // the same data, served by a process whose APP_SECRET changed
    const changed = createApp({ ...t.ctx, cipher: new Cipher('another-secret-another-secret-another-1') })
    const later = new Client({ app: changed })
    later.cookie = client.cookie
    const detail = await expectError(later.get('/api/webdav'), 409)
    expect(detail).toContain('Enter the WebDAV account again')
    expect(detail).not.toContain(dav.password)
    const again = await later.post('/api/webdav', account(dav))
    expect(again.status).toBe(200)
    expect(await (await later.get('/api/webdav')).json()).toEqual(account(dav))
  })
})
