import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseBuffer } from 'music-metadata'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testMedia } from '../support/media.ts'
import { run, startServerProcess, type ServerProcess } from '../support/server-process.ts'
import { startFakeYtdlp } from '../support/fake-ytdlp.ts'
import { sha256, startDenoRelease, zipOf, type DenoRelease } from '../support/deno-release.ts'
import { denoFromPackage, denoTarget } from '../../src/tools/js-runtime.ts'
import { createMusicJob, HttpClient, openListenSocket, signUp, waitForMusicJobs } from './support.ts'

// The one-file executable (scripts/build-binary.ts): built once, started from
// an empty folder with no settings but a loopback address, driven over HTTP.

const bunBuildWorks = (await run([process.execPath, 'build', '--help'], {}, 30_000).catch(() => ({ code: 1 }))).code === 0
const work = mkdtempSync(join(tmpdir(), 'tunefeed-binary-'))
const binary = join(work, 'bin', 'tunefeed')
const home = join(work, 'home') // the empty folder it starts in: DATA_DIR defaults to ./data
let server: ServerProcess | undefined
// the binary has no node_modules: with no Deno on PATH it fetches one. Every start here gets a
// PATH without Deno and a Deno release stand-in on 127.0.0.1 serving the npm package's real binary
let release: DenoRelease | undefined
let denoZipSha = ''
const denoEnv = () => ({ DENO_RELEASE_URL: release!.url, DENO_SHA256: denoZipSha, PATH: '/usr/bin:/bin' })

/** GET /api/health once the tools are found (the managed Deno is fetched first). */
async function healthWhenReady(url: string) {
  const until = Date.now() + 90_000
  for (;;) {
    const res = await fetch(`${url}/api/health`)
    const body = (await res.json()) as Record<string, string>
    if (!Object.values(body).includes('starting: looking for the tools') || Date.now() > until) return { status: res.status, body }
    await Bun.sleep(200)
  }
}

beforeAll(async () => {
  if (!bunBuildWorks) return
  release = await startDenoRelease(denoTarget()!)
  const zip = zipOf([{ name: 'deno', data: await Bun.file(denoFromPackage()!).bytes() }])
  // the stand-in's build is not the pinned one (src/tools/deno-pin.ts): DENO_SHA256 names it
  denoZipSha = sha256(zip)
  release.publish(zip)
  const built = await run([process.execPath, 'scripts/build-binary.ts', `--outfile=${binary}`], {}, 300_000)
  if (built.code !== 0) throw new Error(`build-binary failed (${built.code})\n${built.stdout}\n${built.stderr}`)
}, 310_000)

afterAll(async () => {
  if (server && server.proc.exitCode === null) await server.stop('SIGKILL')
  await release?.stop()
  rmSync(work, { recursive: true, force: true })
})

describe.skipIf(!bunBuildWorks)('the compiled binary', () => {
  test('is one executable that knows its version', async () => {
    expect(statSync(binary).mode & 0o111).not.toBe(0)
    const { code, stdout } = await run([binary, 'version'])
    expect(code).toBe(0)
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
  })

  test('starts from an empty folder with embedded PGlite, migrations and web app', async () => {
    const { mkdirSync } = await import('node:fs')
    mkdirSync(home)
    // no DATA_DIR: ./data under the working directory
    server = await startServerProcess({ LOG_LEVEL: 'info', ...denoEnv() }, 120_000, { cmd: [binary], cwd: home })
    expect(server.stdout()).toContain('"database":"pglite"')
    expect(readdirSync(join(home, 'data')).sort()).toEqual(expect.arrayContaining(['db', 'queue']))

    const health = await healthWhenReady(server.url)
    expect(health.status).toBe(200)
    expect(health.body).toMatchObject({ status: 'ok', database: 'ok', queue: 'ok', jsRuntime: 'ok' })
    expect(release!.hits).toEqual([`/deno-${denoTarget()}.zip.sha256sum`, `/deno-${denoTarget()}.zip`])

    // the web app, its hashed assets and the SPA fallback, all from inside the binary
    const index = await fetch(`${server.url}/`)
    expect(index.status).toBe(200)
    const html = await index.text()
    expect(html).toContain('<div id="root">')
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!
    const js = await fetch(server.url + asset, { headers: { 'accept-encoding': 'gzip' } })
    expect(js.status).toBe(200)
    expect(js.headers.get('content-type')).toContain('javascript')
    expect(js.headers.get('cache-control')).toContain('immutable')
    expect((await js.text()).length).toBeGreaterThan(100)
    const deep = await fetch(`${server.url}/account`)
    expect(deep.status).toBe(200)
    expect(await deep.text()).toBe(html)
    expect((await fetch(`${server.url}/api/nope`)).status).toBe(404)
  }, 130_000)

  test('signs up and runs a music job (wav upload → tagged mp3)', async () => {
    const client = new HttpClient(server!.url)
    const email = `binary-${crypto.randomUUID().slice(0, 8)}@example.com`
    await signUp(client, join(home, 'data', 'mail'), email)
    expect(await (await client.request('/api/auth/session')).json()).toMatchObject({ email })

    const socket = await openListenSocket(client)
    const media = await testMedia()
    const id = await createMusicJob(client, media.wav, { title: 'Binary Tone' })
    const [job] = await waitForMusicJobs(client, [id], 60_000)
    expect(job!.failed).toBeNull()
    expect(job!.completed).toBeString()
    await socket.waitFor((m) => 'id' in m && m.id === id && m.status === 'COMPLETED')
    socket.close()

    const mp3 = await client.request(job!.downloadUrl!)
    expect(mp3.status).toBe(200)
    const bytes = new Uint8Array(await mp3.arrayBuffer())
    expect(new TextDecoder().decode(bytes.slice(0, 3))).toBe('ID3')
    expect(bytes.length).toBeGreaterThan(10_000)
    // the loudness worker is its own entry point in the binary: ReplayGain proves it ran
    const meta = await parseBuffer(bytes, { mimeType: 'audio/mpeg' })
    expect(meta.common.replaygain_track_gain?.dB).toBeNumber()
  }, 90_000)

  test('stops on SIGTERM and runs the admin command on the same data', async () => {
    expect(await server!.stop('SIGTERM')).toBe(0)
    const env = { DATA_DIR: join(home, 'data') }
    const created = await run([binary, 'admin', 'create-user', 'root@example.com', 'password123', '--admin'], env, 120_000)
    expect(created.stderr).toBe('')
    expect(created.stdout).toContain('Created admin root@example.com.')
    expect(created.code).toBe(0)
    expect(existsSync(join(home, 'data', 'db.lock'))).toBe(false)

    // and the next start keeps everything: the admin can log in
    server = await startServerProcess(denoEnv(), 60_000, { cmd: [binary], cwd: home })
    const client = new HttpClient(server.url)
    const login = await client.json('/api/auth/login', { email: 'root@example.com', password: 'password123' })
    expect(login.status).toBe(200)
    expect(await login.json()).toMatchObject({ admin: true })
  }, 200_000)

  test('health check, backup and restore from the binary', async () => {
    const health = await run([binary, 'healthcheck'], { PORT: String(server!.port), HOST: '127.0.0.1' })
    expect(health.code).toBe(0)
    expect(health.stdout).toContain('"status":"ok"')
    expect(await server!.stop()).toBe(0)
    expect((await run([binary, 'healthcheck'], { PORT: String(server!.port) })).code).toBe(1)

    const archive = join(work, 'backup.tar.gz')
    const created = await run([binary, 'backup', 'create', '--out', archive], { DATA_DIR: join(home, 'data') }, 120_000)
    expect(created.stderr).toBe('')
    expect(created.code).toBe(0)
    const elsewhere = join(work, 'restored')
    const restored = await run([binary, 'backup', 'restore', archive], { DATA_DIR: elsewhere }, 120_000)
    expect(restored.stderr).toBe('')
    expect(restored.stdout).toContain('all tables verified')
    expect(restored.code).toBe(0)
    expect(readdirSync(join(elsewhere, 'music')).length).toBe(1) // the user's folder with the job
  }, 200_000)

  test('hands yt-dlp the managed Deno it fetched (never itself as Bun), after asking yt-dlp’s verdict', async () => {
    const fake = startFakeYtdlp({ version: '2026.08.19' })
    const dataDir = join(work, 'js-runtime')
    const js = await startServerProcess({ DATA_DIR: dataDir, YTDLP_PATH: fake.path, FETCH_ALLOW_HOSTS: '127.0.0.1', ...denoEnv() }, 120_000, { cmd: [binary], cwd: work })
    try {
      expect((await healthWhenReady(js.url)).body).toMatchObject({ status: 'ok', jsRuntime: 'ok' })
      const client = new HttpClient(js.url)
      await signUp(client, join(dataDir, 'mail'), 'runtime@example.com')
      const res = await client.request(`/api/music/grouping?video_url=${encodeURIComponent('http://127.0.0.1:9/sleep/10/someone')}`)
      expect(await res.json()).toEqual({ grouping: 'someone' })
      const deno = readdirSync(join(dataDir, 'tools', 'deno', 'builds')).map((sha) => join(dataDir, 'tools', 'deno', 'builds', sha, 'deno'))
      expect(deno).toHaveLength(1)
      expect(statSync(deno[0]!).mode & 0o777).toBe(0o700)
      expect(fake.calls()).toContainEqual(['-v', '--ignore-config', '--no-js-runtimes', '--js-runtimes', `deno:${deno[0]}`])
      const args = fake.calls().find((a) => a.includes('-J'))!
      expect(args[args.indexOf('--js-runtimes') + 1]).toBe(`deno:${deno[0]}`)
      expect(args).toContain('--no-js-runtimes')
      for (const call of fake.calls()) expect(call.join(' ')).not.toContain('bun:')
    } finally {
      await js.stop()
      fake.stop()
    }
  }, 200_000)
})
