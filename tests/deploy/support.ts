import { emlFor } from '../support/smtp.ts'
import { join } from 'node:path'
import type { MusicJob, MusicJobEvent } from '../../src/music/schema.ts'

/**
 * A cookie-keeping HTTP client for a running server (real sockets, as a
 * browser would use it through Caddy or the binary). Sends the Origin of
 * its base URL on every request, as a browser does for same-origin calls.
 */
export class HttpClient {
  constructor(
    readonly base: string,
    private cookies = new Map<string, string>(),
  ) {}

  /** The same browser (same cookies) talking to another address, e.g. another app process. */
  at(base: string): HttpClient {
    return new HttpClient(base, this.cookies)
  }

  get cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  }

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers)
    if (this.cookies.size) headers.set('cookie', this.cookieHeader)
    headers.set('origin', new URL(this.base).origin)
    const res = await fetch(this.base + path, { ...init, headers, redirect: 'manual' })
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const eq = pair!.indexOf('=')
      const name = pair!.slice(0, eq).trim()
      const value = pair!.slice(eq + 1).trim()
      if (value === '' || /max-age=0\b/i.test(line)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    return res
  }

  json(path: string, body: unknown, method = 'POST') {
    return this.request(path, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  }
}

/** The verify token of the newest .eml for `email` under `mailDir` (mail without SMTP_URL), once the mail job wrote it. */
export async function verifyTokenFromMail(mailDir: string, email: string): Promise<string> {
  const mail = await emlFor(mailDir, email)
  const token = /\/verify\/([a-z2-7]+)/.exec(mail.replace(/=\r?\n/g, ''))?.[1]
  if (!token) throw new Error(`no verification mail for ${email} in ${mailDir}`)
  return token
}

/** Signs up through the API (create, verify via the saved .eml, login); the client keeps the session cookie. */
export async function signUp(client: HttpClient, mailDir: string, email: string, password = 'password123') {
  const created = await client.json('/api/auth/create', { email, password })
  if (created.status !== 204) throw new Error(`create: ${created.status} ${await created.text()}`)
  const token = await verifyTokenFromMail(mailDir, email)
  const verified = await client.request(`/api/auth/verify?token=${token}`)
  if (verified.status !== 204) throw new Error(`verify: ${verified.status} ${await verified.text()}`)
  const login = await client.json('/api/auth/login', { email, password })
  if (login.status !== 200) throw new Error(`login: ${login.status} ${await login.text()}`)
}

/** POST /api/music/jobs/create with an audio file; returns the job id. */
export async function createMusicJob(client: HttpClient, file: string, tags: Record<string, string> = {}): Promise<string> {
  const form = new FormData()
  for (const [k, v] of Object.entries({ title: 'Tone', artist: 'Tunefeed', album: 'Deploy', ...tags })) form.append(k, v)
  form.append('file', Bun.file(file, { type: 'audio/wav' }), file.split('/').pop())
  const res = await client.request('/api/music/jobs/create', { method: 'POST', body: form })
  if (res.status !== 201) throw new Error(`job create: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { id: string }).id
}

export async function listMusicJobs(client: HttpClient): Promise<MusicJob[]> {
  const res = await client.request('/api/music/jobs/list?page=1&per_page=50')
  if (res.status !== 200) throw new Error(`list: ${res.status} ${await res.text()}`)
  return ((await res.json()) as { jobs: MusicJob[] }).jobs
}

/** Polls the list until every id is completed or failed. */
export async function waitForMusicJobs(client: HttpClient, ids: string[], timeoutMs = 60_000): Promise<MusicJob[]> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const jobs = (await listMusicJobs(client)).filter((j) => ids.includes(j.id))
    if (jobs.length === ids.length && jobs.every((j) => j.completed || j.failed)) return jobs
    if (Date.now() > until) throw new Error(`jobs did not finish in ${timeoutMs} ms: ${JSON.stringify(jobs)}`)
    await Bun.sleep(200)
  }
}

/** A socket on a listen endpoint that records every message. */
export interface ListenSocket {
  messages: MusicJobEvent[]
  /** Resolves once a message matching `pred` has arrived. */
  waitFor(pred: (m: MusicJobEvent) => boolean, timeoutMs?: number): Promise<MusicJobEvent>
  close(): void
}

export async function openListenSocket(client: HttpClient, path = '/api/music/jobs/listen'): Promise<ListenSocket> {
  const url = client.base.replace(/^http/, 'ws') + path
  // Bun's WebSocket accepts headers: the session cookie and a same-origin Origin
  const ws = new WebSocket(url, { headers: { cookie: client.cookieHeader, origin: new URL(client.base).origin } } as never)
  const messages: MusicJobEvent[] = []
  const waiters = new Set<() => void>()
  ws.onmessage = (e) => {
    messages.push(JSON.parse(String(e.data)))
    for (const w of waiters) w()
  }
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve()
    ws.onerror = () => reject(new Error(`socket ${url} failed to open`))
  })
  return {
    messages,
    waitFor(pred, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(pred)
          if (!found) return
          waiters.delete(check)
          clearTimeout(timer)
          resolve(found)
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(messages)}`))
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
    close: () => ws.close(),
  }
}

/** A free TCP port on 127.0.0.1 (bound then released). */
export function freePort(): number {
  const server = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = server.port
  server.stop(true)
  return port
}

export interface CaddyProcess {
  url: string
  port: number
  accessLog: string
  stderr(): string
  stop(): Promise<void>
}

/**
 * Debian's `caddy run` with deploy/Caddyfile.local on a loopback port in front
 * of `upstreams` ("127.0.0.1:1234 127.0.0.1:5678"). Resolves once it answers.
 */
/** `port`: the port Caddy listens on (chosen before the app starts, so the app's PUBLIC_URL can name it); free by default. */
export async function startCaddy(upstreams: string, dir: string, port = freePort()): Promise<CaddyProcess> {
  const caddy = Bun.which('caddy')
  if (!caddy) throw new Error('caddy is not installed (apt-get install caddy; scripts/test.ts installs it)')
  const accessLog = join(dir, 'access.log')
  const proc = Bun.spawn([caddy, 'run', '--config', join(import.meta.dir, '../../deploy/Caddyfile.local'), '--adapter', 'caddyfile'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      XDG_DATA_HOME: join(dir, 'xdg-data'),
      XDG_CONFIG_HOME: join(dir, 'xdg-config'),
      CADDY_PORT: String(port),
      TUNEFEED_UPSTREAMS: upstreams,
      TUNEFEED_ACCESS_LOG: accessLog,
    },
    stdout: 'ignore',
    stderr: 'pipe',
  })
  let err = ''
  void (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of proc.stderr) err += decoder.decode(chunk, { stream: true })
  })()
  const url = `http://127.0.0.1:${port}`
  const until = Date.now() + 20_000
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`caddy exited with ${proc.exitCode}\n${err}`)
    try {
      await fetch(`${url}/api/health`)
      break
    } catch {
      if (Date.now() > until) {
        proc.kill('SIGKILL')
        throw new Error(`caddy did not answer on ${url}\n${err}`)
      }
      await Bun.sleep(100)
    }
  }
  return {
    url,
    port,
    accessLog,
    stderr: () => err,
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
    },
  }
}
