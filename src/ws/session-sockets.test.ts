import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { websocket } from 'hono/bun'
import { Client, createTestApp, signUp, type TestApp, waitForMail } from '../../tests/support/app.ts'
import { apiTokens, sessions } from '../auth/tables.ts'
import { hashToken } from '../auth/tokens.ts'
import { CLOSE_SESSION_ENDED } from './hub.ts'

// Listen sockets end with the session that opened them: logout and password
// reset close them at once; a session ended elsewhere (another process, the
// admin CLI) closes them at the next ping. Real sockets on 127.0.0.1.
setDefaultTimeout(30_000)

let t: TestApp
let server: ReturnType<typeof Bun.serve>
beforeAll(async () => {
  t = await createTestApp({ env: { WS_PING_SECONDS: '0.2' } })
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: t.app.fetch, websocket })
  t.ctx.hub.attach(server)
}, 60_000)
afterAll(async () => {
  server.stop(true)
  await t.close()
})

/** A listen socket with the client's cookie, or with an API token (`bearer`) instead. */
async function listen(client: Client, path = '/api/music/jobs/listen', bearer?: string) {
  const headers = bearer ? { authorization: `Bearer ${bearer}` } : { cookie: client.cookie }
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}${path}`, { headers } as never)
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (ws.onclose = (e) => resolve({ code: e.code, reason: e.reason })))
  const pings: unknown[] = []
  ws.onmessage = (e) => pings.push(JSON.parse(String(e.data)))
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve()
    ws.onerror = () => reject(new Error('socket refused'))
  })
  return { ws, closed, pings }
}

const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, Bun.sleep(ms).then(() => Promise.reject(new Error(`not within ${ms} ms`)))])

describe('listen sockets end with their session', () => {
  test('logout closes that session\'s sockets (both listen routes) at once; another session\'s stay open', async () => {
    const { client, email, password } = await signUp(t)
    const other = new Client(t)
    expect((await other.post('/api/auth/login', { email, password })).status).toBe(200)
    const music = await listen(client)
    const channels = await listen(client, '/api/youtube/channel/listen')
    const kept = await listen(other)
    expect((await client.request('/api/auth/logout', { method: 'DELETE' })).status).toBe(200)
    expect(await within(music.closed, 1000)).toEqual({ code: CLOSE_SESSION_ENDED, reason: 'Session ended' })
    expect(await within(channels.closed, 1000)).toMatchObject({ code: CLOSE_SESSION_ENDED })
    await Bun.sleep(500)
    expect(kept.ws.readyState).toBe(WebSocket.OPEN)
    expect(kept.pings.length).toBeGreaterThan(0)
    kept.ws.close()
  })

  test('a password reset closes every socket of the user', async () => {
    const { client, email, password } = await signUp(t)
    const second = new Client(t)
    await second.post('/api/auth/login', { email, password })
    const a = await listen(client)
    const b = await listen(second)
    const sent = t.outbox.length
    await client.post('/api/auth/sendreset', { email })
    const code = /reset code is: (\S+)/.exec((await waitForMail(t, email, { after: sent })).text)![1]!
    expect((await new Client(t).post('/api/auth/reset', { token: code, password: 'a new password 1' })).status).toBe(204)
    expect(await within(a.closed, 1000)).toMatchObject({ code: CLOSE_SESSION_ENDED })
    expect(await within(b.closed, 1000)).toMatchObject({ code: CLOSE_SESSION_ENDED })
  })

  test('a session ended elsewhere (row gone, no local logout) closes the socket at a ping', async () => {
    const { client } = await signUp(t)
    const s = await listen(client)
    const token = decodeURIComponent(client.cookie.split('=')[1]!)
    await t.ctx.db.delete(sessions).where(eq(sessions.id, hashToken(token)))
    // this process trusts its session cache for up to 5 s, then the next ping sees the row is gone
    expect(await within(s.closed, 9000)).toMatchObject({ code: CLOSE_SESSION_ENDED })
  })
})

describe('listen sockets opened with an API token, and account changes', () => {
  const newToken = async (client: Client) => ((await (await client.post('/api/auth/tokens', { name: 'script' })).json()) as { id: string; token: string })

  test("revoking a token closes its sockets at once; the owner's session sockets stay", async () => {
    const { client } = await signUp(t)
    const { id, token } = await newToken(client)
    const byToken = await listen(new Client(t), '/api/youtube/channel/listen', token)
    const bySession = await listen(client)
    expect((await client.delete(`/api/auth/tokens/${id}`)).status).toBe(204)
    expect(await within(byToken.closed, 1000)).toEqual({ code: CLOSE_SESSION_ENDED, reason: 'Session ended' })
    await Bun.sleep(400)
    expect(bySession.ws.readyState).toBe(WebSocket.OPEN)
    bySession.ws.close()
  })

  test('a token revoked elsewhere (row gone) closes its socket at a ping', async () => {
    const { client } = await signUp(t)
    const { id, token } = await newToken(client)
    const s = await listen(new Client(t), '/api/music/jobs/listen', token)
    await t.ctx.db.delete(apiTokens).where(eq(apiTokens.id, id))
    expect(await within(s.closed, 2000)).toMatchObject({ code: CLOSE_SESSION_ENDED })
  })

  test("a password change closes the user's other sessions' sockets; this session's stays, and the tokens' with keepTokens", async () => {
    const { client, email, password } = await signUp(t)
    const other = new Client(t)
    expect((await other.post('/api/auth/login', { email, password })).status).toBe(200)
    const { token } = await newToken(client)
    const mine = await listen(client)
    const elsewhere = await listen(other)
    const script = await listen(new Client(t), '/api/music/jobs/listen', token)
    // without keepTokens a change revokes the tokens too (src/auth/tokens-trust.test.ts)
    expect((await client.put('/api/auth/password', { currentPassword: password, password: 'another password 2', keepTokens: true })).status).toBe(204)
    expect(await within(elsewhere.closed, 1000)).toMatchObject({ code: CLOSE_SESSION_ENDED })
    await Bun.sleep(400)
    expect(mine.ws.readyState).toBe(WebSocket.OPEN)
    expect(script.ws.readyState).toBe(WebSocket.OPEN)
    mine.ws.close()
    script.ws.close()
  })

  test('deleting the account closes every socket of the user', async () => {
    const { client, password } = await signUp(t)
    const { token } = await newToken(client)
    const a = await listen(client)
    const b = await listen(new Client(t), '/api/youtube/channel/listen', token)
    expect((await client.request('/api/auth/account', { method: 'DELETE', json: { password } })).status).toBe(204)
    expect(await within(a.closed, 1000)).toMatchObject({ code: CLOSE_SESSION_ENDED })
    expect(await within(b.closed, 1000)).toMatchObject({ code: CLOSE_SESSION_ENDED })
  })
})
