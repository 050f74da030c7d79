import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { connect } from 'node:net'
import { createTestApp, serveTestApp, type TestApp } from '../../tests/support/app.ts'

// Routes outside /api refuse a body over 64 KB, chunked or not, before reading more of it and
// without sign-in (docs/decisions/225-small-bodies-outside-api.md).
setDefaultTimeout(60_000)

let t: TestApp
let server: ReturnType<typeof serveTestApp>
beforeAll(async () => {
  t = await createTestApp()
  server = serveTestApp(t)
})
afterAll(async () => {
  server?.stop(true)
  await t?.close()
})

const MiB = 1024 * 1024
const CHUNKS = 150

/**
 * A form POST over a raw socket in `CHUNKS` chunks of 1 MiB, each sent once the last one was taken
 * (the socket's buffer drained): how many were sent before the server answered or closed, and its answer.
 */
async function chunkedPost(path: string): Promise<{ sent: number; answer: string; closed: boolean }> {
  const socket = connect(server.port!, '127.0.0.1')
  let answer = ''
  let closed = false
  socket.on('data', (d) => (answer += d.toString()))
  socket.on('close', () => (closed = true))
  socket.on('error', () => (closed = true))
  await new Promise((resolve) => socket.once('connect', resolve))
  socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n`)
  const chunk = Buffer.concat([Buffer.from(`${MiB.toString(16)}\r\n`), Buffer.alloc(MiB, 'a'), Buffer.from('\r\n')])
  let sent = 0
  while (sent < CHUNKS && !closed && !answer) {
    const taken = socket.write(chunk)
    sent++
    // the next chunk only once the server read this one (or answered, or closed)
    if (!taken) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), new Promise((resolve) => socket.once('close', resolve)), Bun.sleep(5_000)])
  }
  if (!closed && !answer) socket.write('0\r\n\r\n')
  const until = Date.now() + 10_000
  while (!answer.includes('\r\n\r\n') && !closed && Date.now() < until) await Bun.sleep(20)
  await Bun.sleep(50)
  socket.destroy()
  return { sent, answer, closed }
}

describe('/rest', () => {
  test('a chunked form POST of 150 MiB to /rest/ping is cut off after 64 KB: a Subsonic error in a 200, the rest never read', async () => {
    const before = process.memoryUsage().rss
    const { sent, answer } = await chunkedPost('/rest/ping?f=json')
    // the server answered long before the body ended (a socket buffer or two of 1 MiB chunks)
    expect(sent).toBeLessThan(20)
    expect(answer).toStartWith('HTTP/1.1 200')
    expect(answer).toContain('"code":0')
    expect(answer).toContain('The form is too large.')
    // nothing like the 150 MiB was held
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * MiB)
  })

  test('a declared Content-Length over 64 KB is refused unread; a small form POST still signs in and answers', async () => {
    const big = await t.app.request('/rest/ping?f=json', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(64 * 1024 + 1) },
      body: 'u=x'.padEnd(64 * 1024 + 1, 'a'),
    })
    expect(big.status).toBe(200)
    expect(((await big.json()) as { 'subsonic-response': { error: unknown } })['subsonic-response'].error).toEqual({ code: 0, message: 'The form is too large.' })
    expect(big.headers.get('access-control-allow-origin')).toBe('*')
    // chunked (a stream: no length) but small: read as the form
    const small = await t.app.request('/rest/ping', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new Blob(['f=json&u=nobody%40example.com&p=wrong']).stream(),
      duplex: 'half',
    } as RequestInit)
    expect(((await small.json()) as { 'subsonic-response': { error: { code: number } } })['subsonic-response'].error.code).toBe(40)
  })
})

describe('/feeds and /websub', () => {
  for (const path of ['/feeds/abcdefghijklmnopqrstuvwxyz0123456789/all.xml', '/websub/some-token']) {
    test(`${path.split('/')[1]}: 413 {detail} for a body over 64 KB, declared or chunked`, async () => {
      const declared = await t.app.request(path, { method: 'POST', headers: { 'content-length': String(65 * 1024) }, body: 'a'.repeat(65 * 1024) })
      expect(declared.status).toBe(413)
      expect(await declared.json()).toEqual({ detail: 'Request body is too large.' })
      const { sent, answer } = await chunkedPost(path)
      expect(sent).toBeLessThan(20)
      expect(answer).toStartWith('HTTP/1.1 413')
      expect(answer).toContain('{"detail":"Request body is too large."}')
    })
  }

  test('a feed GET without a body is answered as before (404 for an unknown secret)', async () => {
    const res = await t.app.request('/feeds/abcdefghijklmnopqrstuvwxyz0123456789/all.xml')
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ detail: 'Not found.' })
  })
})
