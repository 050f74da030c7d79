import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestApp, signUp, type TestApp } from '../../tests/support/app.ts'
import { userIdOf } from '../../tests/support/music.ts'
import { addFinishedJob } from '../../tests/support/subsonic.ts'

// Debian's sublime-music (a GTK Subsonic client) against the app, headless under xvfb-run: a
// seeded config (the app password kept as sublime-music's "plaintext" secret, so no keyring is
// needed), started on a fresh profile; it signs in and syncs its library by itself. Every /rest
// request it makes is recorded at the server with the status of its answer: all must be ok.
// Needs Debian's sublime-music and xvfb (scripts/test.ts installs them with the other packages);
// seen here: ping, getPlaylists, getGenres, getAlbumList2 ×3, getCoverArt ×4 in about 15 s.
setDefaultTimeout(150_000)

let t: TestApp
let server: ReturnType<typeof Bun.serve>
let dir: string
const calls: { method: string; status: string }[] = []

beforeAll(async () => {
  t = await createTestApp()
  server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const res = await t.app.fetch(req)
      const url = new URL(req.url)
      if (!url.pathname.startsWith('/rest/')) return res
      const method = url.pathname.slice(6).replace(/\.view$/, '')
      const type = res.headers.get('content-type') ?? ''
      if (!/json|xml/.test(type)) {
        calls.push({ method, status: res.ok ? 'ok' : `http ${res.status}` })
        return res
      }
      const body = await res.text()
      calls.push({ method, status: /status="ok"|"status":"ok"/.test(body) ? 'ok' : body.slice(0, 300) })
      return new Response(body, { status: res.status, headers: res.headers })
    },
  })
  dir = mkdtempSync(join(tmpdir(), 'tunefeed-sublime-'))
}, 180_000)
afterAll(async () => {
  server?.stop(true)
  await t?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

test('sublime-music signs in with the app password and syncs; every request answered ok', async () => {
  const { client, email } = await signUp(t)
  const userId = await userIdOf(t, client)
  await addFinishedJob(t, userId, { title: 'First Light', artist: 'The Dawn', album: 'Morning', year: 2001, trackNumber: 1 })
  await addFinishedJob(t, userId, { title: 'Second', artist: 'The Dawn', album: 'Morning', year: 2001, trackNumber: 2 })
  await addFinishedJob(t, userId, { title: 'Live Set', artist: 'Bravo', album: 'Live', tracks: ['Intro', 'Finale'] })
  const { password } = (await (await client.request('/api/auth/subsonic', { method: 'POST' })).json()) as { password: string }

  const config = join(dir, 'config', 'sublime-music')
  mkdirSync(config, { recursive: true })
  const provider = 'tunefeed'
  writeFileSync(
    join(config, 'config.json'),
    JSON.stringify({
      version: 5,
      cache_location: join(dir, 'cache'),
      providers: {
        [provider]: {
          id: provider,
          name: 'Tunefeed',
          ground_truth_adapter_type: 'SubsonicAdapter',
          ground_truth_adapter_config: {
            server_address: `http://127.0.0.1:${server.port}`,
            username: email,
            password: ['plaintext', password],
            verify_cert: false,
            sync_enabled: true,
            salt_auth: true,
          },
          caching_adapter_type: 'FilesystemAdapter',
          caching_adapter_config: {},
        },
      },
      current_provider_id: provider,
      song_play_notification: false,
    }),
  )
  // its own process group (setsid), so the whole tree (xvfb-run, Xvfb, dbus, the app) is ended at once
  const log = join(dir, 'sublime.log')
  const proc = Bun.spawn(['setsid', 'xvfb-run', '-a', 'dbus-run-session', '--', 'sublime-music', '-c', join(config, 'config.json')], {
    env: { ...process.env, HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data'), XDG_CACHE_HOME: join(dir, 'xcache'), NO_AT_BRIDGE: '1' },
    stdout: Bun.file(log),
    stderr: Bun.file(log),
  })
  const until = Date.now() + 45_000
  while (Date.now() < until && !calls.some((c) => c.method === 'getAlbumList2')) await Bun.sleep(250)
  // let it finish what it started: until no request for 3 s (at most 15 s more)
  const settled = Date.now() + 15_000
  for (let seen = -1; seen !== calls.length && Date.now() < settled; ) {
    seen = calls.length
    await Bun.sleep(3000)
  }
  try {
    process.kill(-proc.pid, 'SIGTERM')
  } catch {}
  await Promise.race([proc.exited, Bun.sleep(5000)])
  try {
    process.kill(-proc.pid, 'SIGKILL')
  } catch {}
  const err = await Bun.file(log).text()
  console.log(calls.map((c) => c.method).join(' '))
  expect(calls.length, err.slice(-2000)).toBeGreaterThan(0)
  expect(calls.filter((c) => c.status !== 'ok')).toEqual([])
  // signed in (ping; its first requests go out together, so ping is not always the first to
  // arrive), then its albums view synced: the album list and the covers
  for (const method of ['ping', 'getAlbumList2', 'getCoverArt']) expect(calls.map((c) => c.method)).toContain(method)
})
