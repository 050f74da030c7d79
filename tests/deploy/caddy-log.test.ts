import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type CaddyProcess, startCaddy } from './support.ts'

// The shipped Caddy config (deploy/tunefeed.caddy) keeps credentials out of its access log: the
// podcast feeds' secret in the path (issue 32, finding 5) and the /rest sign-in in the query.
// Debian's caddy in front of a small upstream on 127.0.0.1 (the app itself is not needed).
setDefaultTimeout(60_000)

const work = mkdtempSync(join(tmpdir(), 'tunefeed-caddy-log-'))
let upstream: ReturnType<typeof Bun.serve>
let caddy: CaddyProcess
beforeAll(async () => {
  upstream = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('ok') })
  caddy = await startCaddy(`127.0.0.1:${upstream.port}`, work)
})
afterAll(async () => {
  await caddy?.stop()
  upstream?.stop(true)
  rmSync(work, { recursive: true, force: true })
})

test('the access log holds neither a feed secret, a WebSub token nor a player password, token, salt or API key', async () => {
  const secret = 'Zq9-feedSecret_0123456789abcdefghij'
  for (const path of [`/feeds/${secret}/all.xml`, `/feeds/${secret}/audio/abcdefghijk.mp3`, `/feeds/${secret}`, `/websub/${secret}`]) expect((await fetch(`${caddy.url}${path}`)).status).toBe(200)
  const query = new URLSearchParams({ u: 'me@example.com', p: 'appPassword123', t: 'tokenabcdef', s: 'saltxyz', apiKey: 'tf_apikeyvalue', f: 'json' })
  expect((await fetch(`${caddy.url}/rest/ping?${query}`)).status).toBe(200)
  await Bun.sleep(300)
  const text = readFileSync(caddy.accessLog, 'utf8')
  const uris = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).request?.uri as string)
  expect(uris).toContain('/feeds/REDACTED/all.xml')
  expect(uris).toContain('/feeds/REDACTED/audio/abcdefghijk.mp3')
  expect(uris).toContain('/feeds/REDACTED')
  expect(uris).toContain('/websub/REDACTED')
  expect(uris).toContain('/rest/ping?u=me%40example.com&p=REDACTED&t=REDACTED&s=REDACTED&apiKey=REDACTED&f=json')
  for (const value of [secret, 'appPassword123', 'tokenabcdef', 'saltxyz', 'tf_apikeyvalue']) expect(text).not.toContain(value)
})
