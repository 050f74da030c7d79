import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { websocket } from 'hono/bun'
import type { FakeYoutube } from '../../scripts/fake-youtube.ts'
import { expectError } from '../../tests/support/http.ts'
import { createYoutubeTestApp, quickUser, startTestFake, type YoutubeTestApp } from '../../tests/support/youtube.ts'

// The listen socket over a real server on 127.0.0.1.
let fake: FakeYoutube
let t: YoutubeTestApp
let server: ReturnType<typeof Bun.serve>
let base: string
beforeAll(async () => {
  fake = await startTestFake()
  t = await createYoutubeTestApp(fake, { WS_PING_SECONDS: '0.2' })
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: t.app.fetch, websocket })
  t.ctx.hub.attach(server)
  base = `127.0.0.1:${server.port}`
}, 60_000)
afterAll(async () => {
  await server.stop(true)
  await t.close()
  await fake.stop()
})

/** Opens the socket with the user's cookie and collects what it hears. */
async function listen(cookie: string, headers: Record<string, string> = {}) {
  const messages: Record<string, unknown>[] = []
  const ws = new WebSocket(`ws://${base}/api/youtube/channel/listen`, { headers: { cookie, ...headers } } as never)
  ws.onmessage = (e) => messages.push(JSON.parse(String(e.data)))
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve()
    ws.onerror = () => reject(new Error('socket refused'))
  })
  return { ws, messages }
}

async function until(check: () => boolean, ms = 3000) {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await Bun.sleep(10)
  }
}

describe('/api/youtube/channel/listen', () => {
  test('followers hear {id, updating} when a refresh starts and ends; others hear nothing; PING keeps it alive', async () => {
    const a = await quickUser(t)
    const b = await quickUser(t)
    const res = await a.client.put('/api/youtube/subscriptions/user?channel_id=@tiny-kitchen')
    const channel = (await res.json()) as { id: string }
    const sa = await listen(a.client.cookie)
    const sb = await listen(b.client.cookie)
    await t.jobs.drain()
    await until(() => sa.messages.filter((m) => 'updating' in m).length === 2)
    expect(sa.messages.filter((m) => m.status !== 'PING')).toEqual([
      { id: channel.id, updating: true },
      { id: channel.id, updating: false },
    ])
    await until(() => sb.messages.some((m) => m.status === 'PING'))
    expect(sb.messages.filter((m) => m.status !== 'PING')).toEqual([])
    expect(sb.messages[0]).toEqual({ status: 'PING' })
    expect(t.ctx.hub.clients).toBe(2)
    sa.ws.close()
    sb.ws.close()
    await until(() => t.ctx.hub.clients === 0)
  })

  test('refused: without a session (401), from another origin (403), without an upgrade (426)', async () => {
    const anon = await fetch(`http://${base}/api/youtube/channel/listen`, {
      headers: { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' },
    })
    await expectError(anon, 401, 'Unauthorized')
    const a = await quickUser(t)
    await expect(listen(a.client.cookie, { origin: 'https://evil.example' })).rejects.toThrow('socket refused')
    const same = await listen(a.client.cookie, { origin: `http://${base}` })
    expect(same.ws.readyState).toBe(WebSocket.OPEN)
    same.ws.close()
    await expectError(a.client.get('/api/youtube/channel/listen'), 426, 'Expected a WebSocket upgrade.')
  })
})
