import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createTestApp, serveTestApp, signUp, type TestApp } from '../../tests/support/app.ts'
import { startSupysonic, type Supysonic } from '../../tests/support/supysonic.ts'

// Our /rest against an existing Subsonic server, Debian's supysonic, asked the same requests:
// the envelope, where errors sit (code and message inside a 200; 404 for an unknown method),
// the password check (plain and enc: hex) and the error codes must agree. Supysonic implements
// API 1.10.2, before salted tokens: a `t` without what completes it is a missing parameter (10)
// on both. See docs/decisions/170-subsonic-api.md.
setDefaultTimeout(60_000)

let t: TestApp
let server: ReturnType<typeof serveTestApp>
let sup: Supysonic
let ours: { url: string; username: string; password: string }

beforeAll(async () => {
  sup = await startSupysonic()
  t = await createTestApp()
  server = serveTestApp(t)
  const { client, email } = await signUp(t)
  const made = (await (await client.request('/api/auth/subsonic', { method: 'POST' })).json()) as { password: string }
  ours = { url: `http://127.0.0.1:${server.port}`, username: email, password: made.password }
}, 90_000)
afterAll(async () => {
  server?.stop(true)
  await t?.close()
  await sup?.stop()
})

interface Seen {
  http: number
  type: string
  status?: string
  code?: number
  hasMessage?: boolean
  keys?: string[]
  /** XML: the root and its children's element names. */
  xml?: string
}

type Creds = { url: string; username: string; password: string }
type Case = { name: string; method: string; params: (s: Creds, server: 'ours' | 'sup') => Record<string, string> }

const signed = (s: Creds) => ({ u: s.username, p: s.password, c: 'compare', v: '1.10.2' })
const UNKNOWN = '3f0c2b2e-8a3c-4e58-9b0e-3c8f3e2b1a11'

const CASES: Case[] = [
  { name: 'ping', method: 'ping', params: (s) => signed(s) },
  { name: 'ping with enc: hex', method: 'ping', params: (s) => ({ ...signed(s), p: `enc:${Buffer.from(s.password).toString('hex')}` }) },
  { name: 'wrong password', method: 'ping', params: (s) => ({ ...signed(s), p: 'wrong' }) },
  { name: 'unknown user', method: 'ping', params: (s) => ({ ...signed(s), u: 'nobody', p: 'wrong' }) },
  { name: 'no credentials', method: 'ping', params: () => ({ c: 'compare', v: '1.10.2' }) },
  { name: 'token without its salt', method: 'ping', params: (s) => ({ u: s.username, t: 'd41d8cd98f00b204e9800998ecf8427e', c: 'compare', v: '1.10.2' }) },
  { name: 'unknown method', method: 'getNothing', params: (s) => signed(s) },
  { name: 'song not found', method: 'getSong', params: (s, which) => ({ ...signed(s), id: which === 'ours' ? `tr-${UNKNOWN}` : UNKNOWN }) },
  { name: 'song without id', method: 'getSong', params: (s) => signed(s) },
  { name: 'license', method: 'getLicense', params: (s) => signed(s) },
  { name: 'empty album list', method: 'getAlbumList2', params: (s) => ({ ...signed(s), type: 'newest' }) },
  { name: 'empty random songs', method: 'getRandomSongs', params: (s) => signed(s) },
]

async function ask(s: Creds, which: 'ours' | 'sup', c: Case, f: 'json' | 'xml', post = false): Promise<Seen> {
  const q = new URLSearchParams({ ...c.params(s, which), ...(f === 'json' ? { f } : {}) })
  const res = post
    ? await fetch(`${s.url}/rest/${c.method}.view`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: q })
    : await fetch(`${s.url}/rest/${c.method}.view?${q}`)
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.includes('json') ? 'json' : 'xml'
  const body = await res.text()
  if (f === 'json') {
    const root = (JSON.parse(body) as { 'subsonic-response': Record<string, unknown> })['subsonic-response']
    const error = root.error as { code: number; message?: string } | undefined
    const payload = Object.keys(root).filter((k) => !['status', 'version', 'type', 'serverVersion', 'openSubsonic', 'error'].includes(k))
    return { http: res.status, type, status: root.status as string, code: error?.code, hasMessage: !!error?.message, keys: payload }
  }
  // element names only, in order: the skeleton of the answer
  const names = [...body.matchAll(/<([A-Za-z][\w-]*)[\s/>]/g)].map((m) => m[1])
  const root = /<subsonic-response\b([^>]*)>/.exec(body)?.[1] ?? ''
  const status = /status="(\w+)"/.exec(root)?.[1]
  const code = /<error code="(\d+)"/.exec(body)?.[1]
  return {
    http: res.status,
    type,
    status,
    code: code ? Number(code) : undefined,
    hasMessage: /<error [^>]*message="[^"]+"/.test(body),
    xml: `${names.join(' ')} xmlns=${/xmlns="([^"]+)"/.exec(root)?.[1]}`,
  }
}

describe('our answers agree with supysonic', () => {
  for (const c of CASES) {
    for (const f of ['json', 'xml'] as const) {
      test(`${c.name} (${f})`, async () => {
        const [theirs, mine] = await Promise.all([ask(sup, 'sup', c, f), ask(ours, 'ours', c, f)])
        expect(mine).toEqual(theirs)
      })
    }
  }

  test('form POST is read like the query string', async () => {
    for (const c of CASES.filter((c) => ['ping', 'wrong password', 'song without id'].includes(c.name))) {
      const [theirs, mine] = await Promise.all([ask(sup, 'sup', c, 'json', true), ask(ours, 'ours', c, 'json', true)])
      expect(mine).toEqual(theirs)
    }
  })

  test('JSONP wraps the same envelope', async () => {
    const jsonp = async (s: Creds) => {
      const res = await fetch(`${s.url}/rest/ping.view?${new URLSearchParams({ ...signed(s), f: 'jsonp', callback: 'cb' })}`)
      const body = await res.text()
      return { type: res.headers.get('content-type')?.split(';')[0], wrapped: /^cb\(\{"subsonic-response": ?\{/.test(body) }
    }
    expect(await jsonp(ours)).toEqual(await jsonp(sup))
  })
})
