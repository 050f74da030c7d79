import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createServer } from 'node:http'
import { join, relative } from 'node:path'
import { v2 as webdav } from 'webdav-server'

/**
 * Real WebDAV servers on loopback for tests. Both keep their files in a
 * temporary folder on disk, so a test can check what an upload stored:
 *
 * - `startWebdavServer()`: the `webdav-server` package in this process
 *   (HTTP Basic auth, one user with all rights on `/`).
 * - `startRcloneWebdav()`: `rclone serve webdav` as a separate process, a
 *   WebDAV server written by someone else (Debian's `rclone`).
 *
 * The app refuses loopback URLs unless FETCH_ALLOW_HOSTS lets them through
 * (e.g. `127.0.0.1`).
 */
export interface TestWebdav {
  /** Base URL ending in `/`, e.g. `http://127.0.0.1:41231/`. */
  url: string
  username: string
  password: string
  /** The folder the server serves. */
  dir: string
  /** Content of a stored file, path relative to the WebDAV root (`/Music/a.mp3` or `Music/a.mp3`). */
  readFile(path: string): Buffer
  exists(path: string): boolean
  /** Every stored file, relative paths with `/`, sorted. */
  listFiles(): string[]
  stop(): Promise<void>
}

function storage(dir: string) {
  const abs = (path: string) => join(dir, path.replace(/^\/+/, ''))
  const walk = (folder: string): string[] =>
    readdirSync(folder).flatMap((name) => {
      const full = join(folder, name)
      return statSync(full).isDirectory() ? walk(full) : [relative(dir, full).split('\\').join('/')]
    })
  return {
    readFile: (path: string) => readFileSync(abs(path)),
    exists: (path: string) => existsSync(abs(path)),
    listFiles: () => walk(dir).sort(),
  }
}

export async function startWebdavServer(
  opts: { username?: string; password?: string } = {},
): Promise<TestWebdav> {
  const username = opts.username ?? 'dav-user'
  const password = opts.password ?? 'dav-password'
  const dir = mkdtempSync(join(tmpdir(), 'tunefeed-webdav-'))

  const users = new webdav.SimpleUserManager()
  const user = users.addUser(username, password, false)
  const privileges = new webdav.SimplePathPrivilegeManager()
  privileges.setRights(user, '/', ['all'])
  const server = new webdav.WebDAVServer({
    httpAuthentication: new webdav.HTTPBasicAuthentication(users, 'tunefeed-test'),
    privilegeManager: privileges,
    rootFileSystem: new webdav.PhysicalFileSystem(dir),
  })
  // our own listener: webdav-server's start(0) treats 0 as "unset" and binds its default port 1900
  const http = createServer((req, res) => server.executeRequest(req, res))
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(0, '127.0.0.1', () => resolve())
  })
  const port = (http.address() as { port: number }).port
  return {
    url: `http://127.0.0.1:${port}/`,
    username,
    password,
    dir,
    ...storage(dir),
    async stop() {
      await new Promise<void>((resolve) => {
        http.close(() => resolve())
        http.closeAllConnections()
      })
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** `rclone serve webdav DIR --addr 127.0.0.1:0`; the port is read from its start-up log line. */
export async function startRcloneWebdav(
  opts: { username?: string; password?: string; rclone?: string; timeoutMs?: number } = {},
): Promise<TestWebdav> {
  const username = opts.username ?? 'u'
  const password = opts.password ?? 'p'
  const dir = mkdtempSync(join(tmpdir(), 'tunefeed-rclone-'))
  const proc = Bun.spawn(
    [
      opts.rclone ?? 'rclone',
      'serve',
      'webdav',
      dir,
      '--addr',
      '127.0.0.1:0',
      '--user',
      username,
      '--pass',
      password,
      '--config',
      '/dev/null',
    ],
    { stdout: 'ignore', stderr: 'pipe' },
  )
  let log = ''
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`rclone did not start in time:\n${log}`)), opts.timeoutMs ?? 15_000)
    ;(async () => {
      const decoder = new TextDecoder()
      for await (const chunk of proc.stderr) {
        log += decoder.decode(chunk, { stream: true })
        // "NOTICE: Local file system at /tmp/x: WebDav Server started on http://127.0.0.1:40687/"
        const found = /started on \[?(http:\/\/127\.0\.0\.1:\d+\/?)\]?/.exec(log)?.[1]
        if (found) {
          clearTimeout(timer)
          resolve(found.endsWith('/') ? found : `${found}/`)
          // keep draining so rclone never blocks on a full pipe
          for await (const _ of proc.stderr) void _
          return
        }
      }
      clearTimeout(timer)
      reject(new Error(`rclone exited (${await proc.exited}) before serving:\n${log}`))
    })().catch(reject)
  }).catch((err) => {
    proc.kill()
    rmSync(dir, { recursive: true, force: true })
    throw err
  })
  return {
    url,
    username,
    password,
    dir,
    ...storage(dir),
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * A "WebDAV server" on 127.0.0.1 that answers 207 to everything and counts the
 * requests it got: a request that gets through would "succeed", so `hits`
 * tells whether input reached the network at all.
 */
export function startAcceptingDav(): { port: number; hits: number; stop(): void } {
  const dav = {
    hits: 0,
    port: 0,
    stop: () => void server.stop(true),
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch() {
      dav.hits++
      return new Response('<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"/>', { status: 207 })
    },
  })
  dav.port = server.port!
  return dav
}
