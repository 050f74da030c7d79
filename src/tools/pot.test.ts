import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { createTestApp, type TestApp } from '../../tests/support/app.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../../tests/support/fake-ytdlp.ts'
import { quickUser } from '../../tests/support/youtube.ts'
import { makeZip } from '../../tests/support/zip.ts'
import { POT_PLUGIN_ENTRY, POT_PLUGIN_SHA256, POT_PLUGIN_URL } from './pot.ts'
import { ytdlpBaseArgs, type YtdlpConfig } from './ytdlp.ts'
import { parseAllowList } from '../lib/url-guard.ts'
import { readZip, safeEntry } from './zip.ts'

// The PO-token provider against stand-ins written from bgutil-ytdlp-pot-provider's README and
// code: its HTTP server (GET /ping → {server_uptime, version}; POST /get_pot → {po_token, ...})
// and the release that carries its yt-dlp plugin (a zip made here, with yt_dlp_plugins/ at its
// root as the project's release workflow zips it), served from a loopback "release host".
setDefaultTimeout(60_000)

const PLUGIN_FILES = [
  { name: 'yt_dlp_plugins/', text: '' },
  { name: 'yt_dlp_plugins/extractor/', text: '' },
  { name: 'yt_dlp_plugins/extractor/getpot_bgutil.py', text: "__version__ = '1.3.1'\n" },
  { name: POT_PLUGIN_ENTRY, text: '# stand-in of the HTTP provider plugin\n' },
  { name: 'yt_dlp_plugins/extractor/getpot_bgutil_script.py', text: '# stand-in\n' },
]
const good = makeZip(PLUGIN_FILES)
const goodSha = createHash('sha256').update(good).digest('hex')
const escaping = makeZip([...PLUGIN_FILES, { name: 'yt_dlp_plugins/../../escape.py', text: 'boom' }])
const escapingSha = createHash('sha256').update(escaping).digest('hex')

let provider: ReturnType<typeof Bun.serve> | null
let providerUrl: string
let release: ReturnType<typeof Bun.serve>
let fake: FakeYtdlp
const pings: string[] = []
const apps: TestApp[] = []

function startProvider(port = 0) {
  return Bun.serve({
    hostname: '127.0.0.1',
    port,
    async fetch(req) {
      const url = new URL(req.url)
      if (req.method === 'GET' && url.pathname === '/ping') {
        pings.push(new Date().toISOString())
        return Response.json({ server_uptime: 12.5, version: '1.3.1' })
      }
      if (req.method === 'POST' && url.pathname === '/get_pot') {
        const body = (await req.json()) as { content_binding?: string }
        return Response.json({ po_token: `pot-for-${body.content_binding ?? 'none'}`, contentBinding: body.content_binding, expiresAt: new Date(Date.now() + 6 * 3600_000).toISOString() })
      }
      return new Response('not found', { status: 404 })
    },
  })
}

beforeAll(() => {
  provider = startProvider()
  providerUrl = `http://127.0.0.1:${provider.port}`
  release = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const { pathname } = new URL(req.url)
      if (pathname === '/download/1.3.1/bgutil-ytdlp-pot-provider.zip') return new Response(good)
      if (pathname === '/escaping/bgutil-ytdlp-pot-provider.zip') return new Response(escaping)
      // a redirect off the release's host is refused (fetchRelease)
      if (pathname === '/moved/bgutil-ytdlp-pot-provider.zip') return Response.redirect('http://localhost:9/x.zip', 302)
      return new Response('not found', { status: 404 })
    },
  })
  fake = startFakeYtdlp({ version: '2025.12.08' })
})
afterAll(async () => {
  for (const t of apps) await t.close()
  provider?.stop(true)
  release.stop(true)
  fake.stop()
})

const pluginUrl = (path = '/download/1.3.1/bgutil-ytdlp-pot-provider.zip') => `http://127.0.0.1:${release.port}${path}`

async function app(env: Record<string, string>) {
  const t = await createTestApp({ env: { FETCH_ALLOW_HOSTS: '127.0.0.1', YTDLP_PATH: fake.path, ...env } })
  apps.push(t)
  return t
}

type PotStatus = { url: string; ok: boolean; version: string | null; checkedAt: string | null; lastError: string | null; plugin: { installed: boolean; error: string | null } | null } | null
/** `tools.potProvider` of the admin status, with `tools.potPlugin` beside it as `plugin`. */
async function potStatus(t: TestApp): Promise<PotStatus> {
  const { client } = await quickUser(t, { admin: true })
  const body = (await (await client.get('/api/admin/status')).json()) as {
    tools: { potProvider: Omit<NonNullable<PotStatus>, 'plugin'> | null; potPlugin: NonNullable<PotStatus>['plugin'] }
  }
  if (!body.tools.potProvider) {
    expect(body.tools.potPlugin).toBeNull()
    return null
  }
  // exactly the contract's fields
  expect(Object.keys(body.tools.potProvider).sort()).toEqual(['checkedAt', 'lastError', 'ok', 'url', 'version'])
  return { ...body.tools.potProvider, plugin: body.tools.potPlugin }
}

/** The argument list of the stand-in's last call for `url`. */
async function argsOfLookup(t: TestApp, url: string) {
  const { client } = await quickUser(t)
  expect((await client.request(`/api/music/grouping?video_url=${encodeURIComponent(url)}`)).status).toBe(200)
  return fake.calls().findLast((a) => a.at(-1) === url)!
}

describe('PO-token provider', () => {
  test('the checked plugin is unpacked privately; every call gets --plugin-dirs and the provider URL; /ping shows on the status', async () => {
    const t = await app({ YTDLP_POT_PROVIDER_URL: providerUrl, YTDLP_POT_PLUGIN_URL: pluginUrl(), YTDLP_POT_PLUGIN_SHA256: goodSha })
    const dir = join(t.ctx.env.DATA_DIR, 'tools', 'pot-plugin', goodSha)
    const file = join(dir, 'bgutil-ytdlp-pot-provider', POT_PLUGIN_ENTRY)
    expect(existsSync(file)).toBe(true)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    for (const d of [join(t.ctx.env.DATA_DIR, 'tools'), join(t.ctx.env.DATA_DIR, 'tools', 'pot-plugin'), dir, join(dir, 'bgutil-ytdlp-pot-provider', 'yt_dlp_plugins', 'extractor')]) {
      expect({ d, mode: statSync(d).mode & 0o777 }).toEqual({ d, mode: 0o700 })
    }
    expect(readdirSync(join(t.ctx.env.DATA_DIR, 'tools', 'pot-plugin'))).toEqual([goodSha])

    const args = await argsOfLookup(t, 'http://127.0.0.1:9/sleep/0/Uploader')
    const at = args.indexOf('--plugin-dirs')
    expect(args[at + 1]).toBe(dir)
    expect(args[args.indexOf('--extractor-args') + 1]).toBe(`youtubepot-bgutilhttp:base_url=${providerUrl}`)

    const status = await potStatus(t)
    expect(status).toMatchObject({ url: providerUrl, ok: true, version: '1.3.1', lastError: null, plugin: { installed: true, error: null } })
    expect(status!.checkedAt).toMatch(/Z$/)

    // the provider goes away: the status says so in words (asked again when read)
    provider!.stop(true)
    provider = null
    const down = await (async () => {
      const end = Date.now() + 30_000
      for (;;) {
        const s = await potStatus(t)
        if (s && !s.ok) return s
        if (Date.now() > end) throw new Error('status never showed the provider down')
        await Bun.sleep(500)
      }
    })()
    expect(down.lastError!.startsWith(`The PO-token provider at ${providerUrl} does not answer: `)).toBe(true)
    expect(down.version).toBeNull()
    // ... and back
    provider = startProvider(Number(new URL(providerUrl).port))
  })

  test('a plugin that does not match its SHA-256 is not unpacked, and yt-dlp is not pointed at it', async () => {
    const t = await app({ YTDLP_POT_PROVIDER_URL: providerUrl, YTDLP_POT_PLUGIN_URL: pluginUrl(), YTDLP_POT_PLUGIN_SHA256: 'a'.repeat(64) })
    expect(existsSync(join(t.ctx.env.DATA_DIR, 'tools', 'pot-plugin', 'a'.repeat(64)))).toBe(false)
    const status = await potStatus(t)
    // the provider answers; the plugin is what is missing, and the status says so
    expect(status!.ok).toBe(true)
    const { installed, error } = status!.plugin!
    expect(installed).toBe(false)
    expect(error).toStartWith('The PO-token plugin is not installed: ')
    expect(error).toContain('does not match its SHA-256')
    const args = await argsOfLookup(t, 'http://127.0.0.1:9/sleep/0/Other')
    expect(args).not.toContain('--plugin-dirs')
    expect(args.join(' ')).not.toContain('youtubepot')
  })

  test('the pinned SHA-256 is what a plugin URL without its own is checked against', async () => {
    const t = await app({ YTDLP_POT_PROVIDER_URL: providerUrl, YTDLP_POT_PLUGIN_URL: pluginUrl() })
    const status = await potStatus(t)
    expect(status!.plugin!.error).toContain(`expected ${POT_PLUGIN_SHA256}, got ${goodSha}`)
    expect(POT_PLUGIN_URL).toBe('https://github.com/Brainicism/bgutil-ytdlp-pot-provider/releases/download/1.3.1/bgutil-ytdlp-pot-provider.zip')
  })

  test('an archive with a path out of its folder, or a redirect off the release host, is refused', async () => {
    const escapes = await app({ YTDLP_POT_PROVIDER_URL: providerUrl, YTDLP_POT_PLUGIN_URL: pluginUrl('/escaping/bgutil-ytdlp-pot-provider.zip'), YTDLP_POT_PLUGIN_SHA256: escapingSha })
    expect((await potStatus(escapes))!.plugin!.error).toContain('unexpected entry: yt_dlp_plugins/../../escape.py')
    expect(existsSync(join(escapes.ctx.env.DATA_DIR, 'escape.py'))).toBe(false)
    expect(existsSync(join(escapes.ctx.env.DATA_DIR, 'tools', 'escape.py'))).toBe(false)
    const moved = await app({ YTDLP_POT_PROVIDER_URL: providerUrl, YTDLP_POT_PLUGIN_URL: pluginUrl('/moved/bgutil-ytdlp-pot-provider.zip'), YTDLP_POT_PLUGIN_SHA256: goodSha })
    expect((await potStatus(moved))!.plugin!.error).toContain('not a download host of the release')
  })

  test('without YTDLP_POT_PROVIDER_URL: no provider, no plugin, no extra arguments', async () => {
    const t = await app({})
    expect(await potStatus(t)).toBeNull()
    const args = await argsOfLookup(t, 'http://127.0.0.1:9/sleep/0/Plain')
    expect(args).not.toContain('--plugin-dirs')
    expect(existsSync(join(t.ctx.env.DATA_DIR, 'tools', 'pot-plugin'))).toBe(false)
  })

  test('a yt-dlp older than its PO-token framework (2025.05.22) gets no plugin arguments', () => {
    const cfg: YtdlpConfig = {
      path: '/bin/true',
      version: '2025.05.01',
      allow: parseAllowList(''),
      jsRuntime: { name: 'deno', path: '/bin/true', supported: true, env: {} },
      maxFilesize: 1,
      cookies: null,
      tmpDir: '/tmp',
      pot: { pluginDir: '/data/tools/pot-plugin/x', baseUrl: 'http://127.0.0.1:4416' },
    }
    expect(ytdlpBaseArgs(cfg, 'http://proxy', null)).not.toContain('--plugin-dirs')
    expect(ytdlpBaseArgs({ ...cfg, version: '2025.05.22' }, 'http://proxy', null).join(' ')).toContain(
      '--plugin-dirs /data/tools/pot-plugin/x --extractor-args youtubepot-bgutilhttp:base_url=http://127.0.0.1:4416',
    )
  })

  test('the zip reader checks each entry and refuses unsafe names', () => {
    const entries = readZip(good)
    expect(entries.map((e) => e.name)).toEqual(PLUGIN_FILES.map((f) => f.name))
    expect(new TextDecoder().decode(entries[3]!.data)).toBe(PLUGIN_FILES[3]!.text)
    expect(entries.every(safeEntry)).toBe(true)
    expect(safeEntry({ name: '/etc/passwd', mode: 0o100644, directory: false, data: new Uint8Array() })).toBe(false)
    expect(safeEntry({ name: 'yt_dlp_plugins/link', mode: 0o120777, directory: false, data: new Uint8Array() })).toBe(false)
    const damaged = good.slice()
    const at = Buffer.from(damaged).indexOf('stand-in of the HTTP')
    damaged[at] = damaged[at]! ^ 0xff
    expect(() => readZip(damaged)).toThrow(/checksum/)
  })
})
