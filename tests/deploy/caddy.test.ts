import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ffmpeg, testMedia } from '../support/media.ts'
import { startServerProcess, type ServerProcess } from '../support/server-process.ts'
import { ensureWebBuild } from '../support/web-build.ts'
import { createMusicJob, freePort, HttpClient, openListenSocket, signUp, startCaddy, waitForMusicJobs, type CaddyProcess } from './support.ts'

// Debian's caddy with deploy/Caddyfile.local (which imports the same
// deploy/tunefeed.caddy as the HTTPS Caddyfile) in front of a real app
// process; every request below goes through Caddy.

const work = mkdtempSync(join(tmpdir(), 'tunefeed-caddy-'))
const dataDir = join(work, 'data')
let app: ServerProcess
let caddy: CaddyProcess
let client: HttpClient

beforeAll(async () => {
  await ensureWebBuild()
  // mail links come from PUBLIC_URL (never from the request's Host: decision 159), here Caddy's address
  const caddyPort = freePort()
  app = await startServerProcess({ DATA_DIR: dataDir, TRUST_PROXY: '1', PUBLIC_URL: `http://127.0.0.1:${caddyPort}` }, 120_000)
  caddy = await startCaddy(`127.0.0.1:${app.port}`, work, caddyPort)
  client = new HttpClient(caddy.url)
}, 300_000)

afterAll(async () => {
  await caddy?.stop()
  if (app && app.proc.exitCode === null) await app.stop()
  rmSync(work, { recursive: true, force: true })
})

describe('behind Caddy', () => {
  test('pages: the app, compressed, with security headers; SPA fallback', async () => {
    const res = await fetch(`${caddy.url}/`, { headers: { 'accept-encoding': 'zstd, gzip' }, decompress: false } as RequestInit)
    expect(res.status).toBe(200)
    expect(['zstd', 'gzip']).toContain(res.headers.get('content-encoding')!)
    expect(res.headers.get('server')).toBeNull()
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'")
    // the app's own header wins over Caddy's fallback
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN')

    const page = await fetch(`${caddy.url}/music`)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<div id="root">')
  })

  test('API: sign up, log in, session; mail links carry the public (Caddy) address', async () => {
    const email = `caddy-${crypto.randomUUID().slice(0, 8)}@example.com`
    await signUp(client, join(dataDir, 'mail'), email)
    const session = await client.request('/api/auth/session')
    expect(session.status).toBe(200)
    expect(await session.json()).toMatchObject({ email })
    // the verification link carries the public address (PUBLIC_URL: Caddy's), not the app's port
    const eml = readFileSync(join(dataDir, 'mail', (await Array.fromAsync(new Bun.Glob('*.eml').scan(join(dataDir, 'mail'))))[0]!), 'utf8')
    expect(eml).toContain(`127.0.0.1:${caddy.port}/verify/`)
    expect(await (await fetch(`${caddy.url}/api/nope`)).json()).toEqual({ detail: 'Not found.' })
    // metrics are for the scraper on the app's own port, not for the internet
    expect((await fetch(`${caddy.url}/metrics`)).status).toBe(404)
    expect((await fetch(`${app.url}/metrics`)).status).toBe(200)
  })

  test('WebSocket: job events reach a socket opened through Caddy; upload through Caddy', async () => {
    const socket = await openListenSocket(client)
    const media = await testMedia()
    const id = await createMusicJob(client, media.wav, { title: 'Through Caddy' })
    await socket.waitFor((m) => 'id' in m && m.id === id && m.status === 'STARTED', 30_000)
    await socket.waitFor((m) => 'id' in m && m.id === id && m.status === 'COMPLETED', 60_000)
    socket.close()
    const [job] = await waitForMusicJobs(client, [id])
    expect(job!.completed).toBeString()
    const mp3 = await client.request(job!.downloadUrl!)
    expect(mp3.status).toBe(200)
    expect(mp3.headers.get('content-type')).toBe('audio/mpeg')
    expect((await mp3.arrayBuffer()).byteLength).toBeGreaterThan(10_000)
  }, 90_000)

  test('a 190 MiB upload streams through Caddy to the app', async () => {
    const big = join(work, 'big.wav')
    // 1130 s of 16-bit stereo at 44.1 kHz ≈ 190 MiB, under the 200 MiB MAX_UPLOAD_BYTES default
    await ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1130', '-ac', '2', '-c:a', 'pcm_s16le', big])
    expect(statSync(big).size).toBeGreaterThan(190 * 1024 * 1024 - 1024 * 1024)
    const form = new FormData()
    form.append('file', Bun.file(big, { type: 'audio/wav' }), 'big.wav')
    const res = await client.request('/api/music/tags', { method: 'POST', body: form })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ title: null, artist: null })
    rmSync(big)
  }, 120_000)

  test('the top-level HTTPS Caddyfile (same snippet, a domain) adapts and is valid', async () => {
    const proc = Bun.spawn(['caddy', 'validate', '--config', join(import.meta.dir, '../../Caddyfile'), '--adapter', 'caddyfile'], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, XDG_DATA_HOME: join(work, 'xdg-data'), XDG_CONFIG_HOME: join(work, 'xdg-config'), DOMAIN: 'music.example.org' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()])
    expect({ code, out: out + err }).toMatchObject({ code: 0, out: expect.stringContaining('Valid configuration') })
  })

  test('access log: one JSON line per request', async () => {
    await Bun.sleep(200)
    const lines = readFileSync(caddy.accessLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    const uris = lines.map((l) => l.request?.uri)
    expect(uris).toContain('/api/auth/login')
    expect(uris).toContain('/api/music/jobs/listen')
    expect(lines.find((l) => l.request?.uri === '/api/music/tags')).toMatchObject({ status: 200 })
  })
})
