import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestApp, signUp, type Client, type TestApp } from '../../tests/support/app.ts'
import { startMediaServer, type MediaServer } from '../../tests/support/media.ts'
import { musicForm, postForm, waitForJob } from '../../tests/support/music.ts'
import { nsigText, scriptBuild, sha256, startReleaseServer, zipappBuild, type ReleaseServer } from '../../tests/support/ytdlp-release.ts'
import { setAdmin } from '../auth/queries.ts'
import { Toolbox } from './toolbox.ts'

// The managed yt-dlp against a release server on 127.0.0.1 serving builds made now from Debian's
// yt-dlp, its sums signed with a key made now: the first copy seeded from PATH, a signature by
// another key, no signature, sums changed after signing, a substituted build, a redirect off the
// release's host, a good update, a build that fails its self-test, rollback, an outdated build
// replaced mid-job (once an hour for users), and YTDLP_UPDATE=off.
// Deadlines are far above a quiet machine's times: the suite runs on busy 2-core machines.
setDefaultTimeout(240_000)
const CHECK_DEADLINE_MS = 180_000

let release: ReleaseServer
let media: MediaServer
let t: TestApp
let admin: Client
let good: Uint8Array

interface Status {
  tools: {
    ytDlp: { version: string | null; path: string | null; managed: boolean; channel: string; checkedAt: string | null; updatedAt: string | null; lastError: string | null; previousVersion: string | null }
    ffmpeg: { version: string | null; path: string | null; source: string | null }
    jsRuntime: { name: string | null; version: string | null; path: string | null; source: string | null; supported: boolean }
  }
  cookies: { set: boolean; count: number; domains: string[]; updatedAt: string | null }
  queue: Record<string, number>
  schedules: { name: string }[]
}

async function status(client = admin): Promise<Status> {
  const res = await client.get('/api/admin/status')
  expect(res.status).toBe(200)
  return (await res.json()) as Status
}

/** POST update → 202, then waits for the check to be recorded. */
async function update(): Promise<Status['tools']['ytDlp']> {
  // a check still running (the start-up one, slow on a busy machine) would take this request in
  // (one check at a time) and end with the checkedAt read here: let it finish first
  const running = Date.now() + CHECK_DEADLINE_MS
  while (t.ctx.tools.managed.busy) {
    if (Date.now() > running) throw new Error('the running check did not finish')
    await Bun.sleep(100)
  }
  const before = (await status()).tools.ytDlp.checkedAt
  const res = await admin.post('/api/admin/tools/ytdlp/update')
  expect(res.status).toBe(202)
  const until = Date.now() + CHECK_DEADLINE_MS
  for (;;) {
    const now = (await status()).tools.ytDlp
    if (now.checkedAt && now.checkedAt !== before && !t.ctx.tools.managed.busy) return now
    if (Date.now() > until) throw new Error('update check did not finish')
    await Bun.sleep(100)
  }
}

const assetHits = () => release.hits.filter((h) => h === 'yt-dlp').length


beforeAll(async () => {
  release = startReleaseServer()
  ;[media, good] = await Promise.all([startMediaServer(), zipappBuild('2025.10.22')])
  t = await createTestApp({
    env: { YTDLP_UPDATE: 'stable', YTDLP_RELEASE_URL: release.url, YTDLP_SIGNING_KEY: release.publicKey, FETCH_ALLOW_HOSTS: '127.0.0.1' },
    queue: { retryDelayMs: 100 },
  })
  let email: string
  ;({ client: admin, email } = await signUp(t))
  await setAdmin(t.ctx.db, email, true)
}, 120_000)
afterAll(async () => {
  await t?.close()
  await Promise.all([release?.stop(), media?.stop()])
})

describe('managed yt-dlp', () => {
  test('the first copy is the yt-dlp on PATH; nothing to roll back to yet', async () => {
    const { tools } = await status()
    expect(tools.ytDlp).toMatchObject({ version: '2023.03.04', managed: true, channel: 'stable', previousVersion: null })
    expect(tools.ytDlp.path).toStartWith(t.ctx.env.DATA_DIR)
    // Debian's yt-dlp knows no --js-runtimes: no verdict, our own range decides
    expect(tools.jsRuntime).toMatchObject({ name: 'deno', supported: true })
    expect(tools.jsRuntime.source).toBeOneOf(['path', 'package'])
    expect(tools.ffmpeg.source).toBe('path')
    const res = await admin.post('/api/admin/tools/ytdlp/rollback')
    expect(res.status).toBe(409)
    expect(await res.json()).toEqual({ detail: 'No previous version.' })
  })

  test('sums signed by another key: nothing of the release is fetched or run; the current build stays', async () => {
    release.publish('yt-dlp', good)
    release.signing = 'other'
    const downloads = assetHits()
    const ytDlp = await update()
    expect(ytDlp.version).toBe('2023.03.04')
    expect(ytDlp.lastError).toMatch(/^SHA2-256SUMS is signed by key [0-9A-F]{16}, not by the release key [0-9A-F]{40}: the release was not used\.$/)
    expect(release.hits).toContain('SHA2-256SUMS.sig')
    expect(assetHits()).toBe(downloads)
  })

  test('no SHA2-256SUMS.sig: the release is not used', async () => {
    release.signing = 'none'
    const downloads = assetHits()
    const ytDlp = await update()
    expect(ytDlp.version).toBe('2023.03.04')
    expect(ytDlp.lastError).toMatch(/^SHA2-256SUMS\.sig could not be fetched \(.*HTTP 404\): without its signature the release is not used\.$/)
    expect(assetHits()).toBe(downloads)
  })

  test('sums changed after signing (a signature over other sums): refused', async () => {
    // the signature is over the sums before `good` was listed
    release.signing = 'stale'
    const ytDlp = await update()
    expect(ytDlp.version).toBe('2023.03.04')
    expect(ytDlp.lastError).toMatch(/^SHA2-256SUMS\.sig does not match SHA2-256SUMS .*: the release was not used\.$/)
  })

  test('a substituted build (signed sums, other bytes served): checksum mismatch, never run', async () => {
    release.signing = 'good'
    // a build that would leave a mark if it ran (its self-test)
    const marker = join(t.ctx.env.DATA_DIR, 'substituted-build-ran')
    release.tamper('yt-dlp', scriptBuild('2099.01.01', `touch ${marker}`))
    const ytDlp = await update()
    expect(ytDlp.version).toBe('2023.03.04')
    expect(ytDlp.lastError).toMatch(/^checksum mismatch for yt-dlp: SHA2-256SUMS says [0-9a-f]{64}, the download is [0-9a-f]{64}$/)
    expect(existsSync(marker)).toBe(false)
  })

  test('a redirect off the release host is not followed', async () => {
    release.publish('yt-dlp', good)
    // localhost is loopback too, but not the release's host (127.0.0.1): no request reaches it
    release.redirect('yt-dlp', `${release.url.replace('127.0.0.1', 'localhost')}/yt-dlp`)
    try {
      const ytDlp = await update()
      expect(ytDlp.version).toBe('2023.03.04')
      expect(ytDlp.lastError).toBe('redirected to localhost, which is not a download host of the release')
    } finally {
      release.redirect('yt-dlp', null)
    }
  })

  test('plain HTTP to a host that is not loopback is refused before any request', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tunefeed-http-release-'))
    const tools = new Toolbox({ ...t.ctx.env, DATA_DIR: dataDir, YTDLP_RELEASE_URL: 'http://downloads.example.com/yt-dlp' }, t.ctx)
    try {
      expect(await tools.managed.update('admin')).toBe('failed')
      expect(tools.managed.snapshot().lastError).toBe('http://downloads.example.com is not HTTPS: release downloads must use HTTPS')
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  test('a checksum mismatch in the signed sums keeps the current build and says why', async () => {
    release.publish('yt-dlp', good, { sum: sha256(new TextEncoder().encode('something else')) })
    const ytDlp = await update()
    expect(ytDlp.version).toBe('2023.03.04')
    expect(ytDlp.lastError).toMatch(/checksum mismatch for yt-dlp/)
    expect(release.hits).toContain('SHA2-256SUMS')
  })

  test('a build that fails its self-test keeps the current build', async () => {
    // answers --version, but cannot extract anything
    release.publish('yt-dlp', scriptBuild('2099.01.01', 'echo "ERROR: broken build" >&2; exit 1'))
    const ytDlp = await update()
    expect(ytDlp.version).toBe('2023.03.04')
    expect(ytDlp.lastError).toMatch(/self-test failed: metadata extraction/)
  })

  test('a good build is checked, self-tested and switched to; jobs run with it', async () => {
    release.publish('yt-dlp', good)
    const ytDlp = await update()
    expect(ytDlp).toMatchObject({ version: '2025.10.22', managed: true, lastError: null, previousVersion: '2023.03.04' })
    expect(ytDlp.path).toContain(sha256(good))
    // private: the builds and their folders 0700, the state 0600 (DATA_DIR/tools included)
    const mode = (p: string) => statSync(p).mode & 0o777
    expect(mode(ytDlp.path!)).toBe(0o700)
    expect(mode(join(ytDlp.path!, '..'))).toBe(0o700)
    expect(mode(join(t.ctx.env.DATA_DIR, 'tools'))).toBe(0o700)
    expect(mode(join(t.ctx.tools.managed.dir, 'builds'))).toBe(0o700)
    expect(mode(join(t.ctx.tools.managed.dir, 'state.json'))).toBe(0o600)
    // checked again with nothing new: stays, no second download
    const downloads = release.hits.filter((h) => h === 'yt-dlp').length
    expect((await update()).version).toBe('2025.10.22')
    expect(release.hits.filter((h) => h === 'yt-dlp').length).toBe(downloads)
    const { client } = await signUp(t)
    const res = await postForm(client, '/api/music/jobs/create', musicForm({ video_url: `${media.url}/page.html`, title: 'T', artist: 'A', album: 'B' }))
    const job = await waitForJob(client, ((await res.json()) as { id: string }).id, CHECK_DEADLINE_MS)
    expect(job.completed).toMatch(/Z$/)
  })

  test('never swapped under a running yt-dlp call', async () => {
    const next = await zipappBuild('2025.11.01')
    release.publish('yt-dlp', next)
    let release1!: () => void
    const held = t.ctx.tools.withYtdlp(() => new Promise<void>((resolve) => (release1 = resolve)))
    const check = t.ctx.tools.managed.update()
    await Bun.sleep(3000)
    // downloaded and self-tested, but waiting for the running call
    expect(t.ctx.tools.ytdlp!.version).toBe('2025.10.22')
    release1()
    await held
    expect(await check).toBe('updated')
    expect(t.ctx.tools.ytdlp!.version).toBe('2025.11.01')
  })

  test('rollback: the previous build again (200 with its version); the check does not reinstall the one rolled back from', async () => {
    const res = await admin.post('/api/admin/tools/ytdlp/rollback')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ version: '2025.10.22' })
    expect((await status()).tools.ytDlp).toMatchObject({ version: '2025.10.22', previousVersion: '2025.11.01' })
    expect((await update()).version).toBe('2025.10.22')
  })

  test('an outdated build: the job triggers an update check and is retried once with the new build', async () => {
    // a build that fails like an outdated extractor on marked links, and is otherwise Debian's yt-dlp
    const outdated = scriptBuild('2025.09.05', `case "$*" in *outdated=1*) printf '%s\\n' ${JSON.stringify(nsigText())} >&2; exit 1;; esac\nexec /usr/bin/yt-dlp "$@"`)
    release.publish('yt-dlp', outdated)
    expect((await update()).version).toBe('2025.09.05')
    // below 2025.11: the Debian code inside knows no --js-runtimes, which newer versions get
    const fixed = await zipappBuild('2025.10.30')
    release.publish('yt-dlp', fixed)
    const { client } = await signUp(t)
    const res = await postForm(client, '/api/music/jobs/create', musicForm({ video_url: `${media.url}/page.html?outdated=1`, title: 'T', artist: 'A', album: 'B' }))
    const job = await waitForJob(client, ((await res.json()) as { id: string }).id, CHECK_DEADLINE_MS)
    expect(job.completed).toMatch(/Z$/)
    expect(t.ctx.tools.ytdlp!.version).toBe('2025.10.30')
    expect(existsSync(t.ctx.tools.ytdlp!.path)).toBe(true)
  })

  test('another outdated failure within the hour starts no check (nor after a restart); the admin still can', async () => {
    const outdated = scriptBuild('2025.09.06', `case "$*" in *outdated=1*) printf '%s\\n' ${JSON.stringify(nsigText())} >&2; exit 1;; esac\nexec /usr/bin/yt-dlp "$@"`)
    release.publish('yt-dlp', outdated)
    expect((await update()).version).toBe('2025.09.06')
    release.publish('yt-dlp', await zipappBuild('2025.10.31'))
    const sums = release.hits.filter((h) => h === 'SHA2-256SUMS').length
    const { client } = await signUp(t)
    const res = await postForm(client, '/api/music/jobs/create', musicForm({ video_url: `${media.url}/page.html?outdated=1`, title: 'T', artist: 'A', album: 'B' }))
    const job = await waitForJob(client, ((await res.json()) as { id: string }).id, CHECK_DEADLINE_MS)
    expect(job.failed).toBeTruthy()
    expect(job.errorKind).toBe('tool_outdated')
    expect(release.hits.filter((h) => h === 'SHA2-256SUMS').length).toBe(sums)
    expect(t.ctx.tools.ytdlp!.version).toBe('2025.09.06')
    // the time of the last user-started check is saved: a restarted app (same DATA_DIR) also waits
    const restarted = new Toolbox(t.ctx.env, t.ctx)
    await restarted.managed.load()
    expect(await restarted.managed.update('user')).toBe('throttled')
    expect(release.hits.filter((h) => h === 'SHA2-256SUMS').length).toBe(sums)
    // the admin's check is never throttled
    expect((await update()).version).toBe('2025.10.31')
  })

  test('admin only', async () => {
    const { client } = await signUp(t)
    expect((await client.get('/api/admin/status')).status).toBe(403)
    expect((await client.post('/api/admin/tools/ytdlp/update')).status).toBe(403)
    expect((await client.post('/api/admin/tools/ytdlp/rollback')).status).toBe(403)
  })
})

describe('YTDLP_UPDATE=off', () => {
  test('no download: the yt-dlp on PATH runs; update is refused', async () => {
    const off = await createTestApp({ env: { YTDLP_UPDATE: 'off', YTDLP_RELEASE_URL: release.url } })
    try {
      const { client, email } = await signUp(off)
      await setAdmin(off.ctx.db, email, true)
      const hits = release.hits.length
      const { tools } = await status(client)
      expect(tools.ytDlp).toMatchObject({ version: '2023.03.04', path: '/usr/bin/yt-dlp', managed: false, channel: 'off' })
      expect((await client.post('/api/admin/tools/ytdlp/update')).status).toBe(409)
      expect(await off.ctx.tools.managed.update()).toBe('off')
      expect(release.hits.length).toBe(hits)
    } finally {
      await off.close()
    }
  })
})
