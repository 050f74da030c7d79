import { websocket } from 'hono/bun'
import type { ExtractSchema } from 'hono/types'
import { createApp, type AppType } from '../../src/app.ts'
import type { AppContext } from '../../src/context.ts'
import { createContext } from '../../src/compose.ts'
import { parseEnv } from '../../src/env.ts'
import { startTestS3, type TestS3 } from './s3.ts'
import type { Mailer, Mail } from '../../src/lib/mailer.ts'
import { createMailer } from '../../src/lib/mailer.ts'
import type { QueueConfig } from '../../src/jobs/queue.ts'
import { createTestDatabase } from './db.ts'
import type { Database } from '../../src/db/client.ts'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Queue timing a test may shorten: `retryDelayMs` (1 s in the app) for tests that wait through
 * retries; the retries themselves run the same code.
 */
export type TestQueueOptions = Pick<QueueConfig, 'retryDelayMs'>

export interface TestApp {
  app: ReturnType<typeof createApp>
  ctx: AppContext
  /** Every mail the app sent (also delivered to SMTP when `smtpUrl` is given). */
  outbox: Mail[]
  close(): Promise<void>
}

/**
 * A fresh app on a fresh database, driven through `app.request()` (no port).
 * Pass `smtpUrl` to deliver mail to a real SMTP server (tests/support/smtp.ts).
 */
export async function createTestApp(
  opts: {
    env?: Record<string, string>
    smtpUrl?: string
    ctx?: Partial<AppContext>
    queue?: TestQueueOptions
    /** A database of the test's own (e.g. a private PostgreSQL instance it restarts); closed with the app. */
    database?: Database
  } = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tunefeed-test-'))
  // TEST_STORAGE=s3: every test app keeps its files in a bucket of the test S3 store (tests/support/s3.ts)
  const storageEnv = process.env.TEST_STORAGE === 's3' ? (await sharedTestS3()).env({ S3_PREFIX: `${crypto.randomUUID()}/` }) : {}
  const env = parseEnv({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    APP_SECRET: 'test-secret-test-secret-test-secret-0123',
    RATE_LIMIT_MAX: '1000',
    SCHEDULER: 'false',
    // no managed yt-dlp download in tests unless a test asks for one (against a local release server)
    YTDLP_UPDATE: 'off',
    // the canary (src/tools/canary.ts) never reaches YouTube from a test: nothing listens on port 9
    YTDLP_CANARY_URL: 'http://127.0.0.1:9/canary',
    // no YouTube pacing unless a test sets it (src/tools/pace.test.ts): many tests run YouTube-URL jobs
    YTDLP_SLEEP_SECONDS: '0',
    // finished music jobs never look lyrics up at lrclib.net from a test (tests/support/lrclib.ts is the stand-in)
    LYRICS_URL: 'off',
    PATH: process.env.PATH ?? '',
    ...(opts.smtpUrl ? { SMTP_URL: opts.smtpUrl } : {}),
    ...storageEnv,
    ...opts.env,
  })
  const database = opts.database ?? (await createTestDatabase())
  const outbox: Mail[] = []
  const delivery = createMailer({ smtpUrl: env.SMTP_URL, from: env.MAIL_FROM, dataDir })
  const mailer: Mailer = {
    async send(mail) {
      outbox.push(mail)
      await delivery.send(mail)
    },
  }
  // a real queue and worker (bunqueue) unless the test brings its own Jobs
  const { ctx, ...jobs } = createContext(env, {
    database,
    mailer,
    queue: { dataPath: testQueuePath(), queueName: `test-${crypto.randomUUID()}`, ...opts.queue },
    overrides: opts.ctx,
  })
  if (!opts.ctx?.tools) await ctx.tools.init()
  await jobs.start()
  const app = createApp(ctx)
  return {
    app,
    ctx,
    outbox,
    async close() {
      await jobs.stop()
      await database.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

let s3: Promise<TestS3> | undefined
/** One test S3 store per test process (each app its own prefix), closed at exit. */
export function sharedTestS3(): Promise<TestS3> {
  s3 ??= startTestS3().then((store) => {
    process.once('beforeExit', () => void store.close())
    return store
  })
  return s3
}

let queueDir: string | undefined
/**
 * bunqueue's embedded manager is one per process and bound to one SQLite
 * file: every test app of this process shares one file (removed at exit),
 * each with its own queue name.
 */
export function testQueuePath() {
  if (!queueDir) {
    const dir = mkdtempSync(join(tmpdir(), 'tunefeed-queue-'))
    queueDir = dir
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  }
  return join(queueDir, 'jobs.db')
}

type Schema = ExtractSchema<AppType>
/** A route pattern with each `:param` as any text: `/api/music/jobs/${id}/delete` fits `/api/music/jobs/:id/delete`. */
type Filled<P extends string> = P extends `${infer Head}:${string}/${infer Tail}`
  ? `${Head}${string}/${Filled<Tail>}`
  : P extends `${infer Head}:${string}`
    ? `${Head}${string}`
    : P
/** A path of AppType's routes answering `method` (lower case), optionally with a query string. */
export type RoutePath<M extends string> = {
  [K in keyof Schema & string]: `$${M}` extends keyof Schema[K] ? Filled<K> | `${Filled<K>}?${string}` : never
}[keyof Schema & string]

/**
 * Minimal cookie jar over app.request(): keeps the session cookie between
 * calls. get/post/put/delete take only paths of AppType's routes; `request`
 * takes any path (web files, unknown routes, other methods).
 */
export class Client {
  cookie = ''
  constructor(private t: { app: TestApp['app'] }) {}

  async request(path: string, init: RequestInit & { json?: unknown } = {}) {
    const headers = new Headers(init.headers)
    if (this.cookie) headers.set('cookie', this.cookie)
    let body = init.body
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json')
      body = JSON.stringify(init.json)
    }
    const res = await this.t.app.request(path, { ...init, headers, body })
    const set = res.headers.get('set-cookie')
    if (set) {
      const pair = set.split(';')[0]!
      this.cookie = /=$/.test(pair) || /max-age=0/i.test(set) ? '' : pair
    }
    return res
  }

  get = (path: RoutePath<'get'>) => this.request(path)
  post = (path: RoutePath<'post'>, json?: unknown) => this.request(path, { method: 'POST', json })
  put = (path: RoutePath<'put'>, json?: unknown) => this.request(path, { method: 'PUT', json })
  delete = (path: RoutePath<'delete'>) => this.request(path, { method: 'DELETE' })
}

/** Signs up, verifies through the mailed link and logs in; returns a logged-in client. */
export async function signUp(t: TestApp, email = `user-${crypto.randomUUID().slice(0, 8)}@example.com`, password = 'correct horse') {
  const client = new Client(t)
  const created = await client.post('/api/auth/create', { email, password })
  if (created.status !== 204) throw new Error(`create failed: ${created.status} ${await created.text()}`)
  // mail goes through the queue (src/mail/jobs.ts): wait for it
  const mail = await waitForMail(t, email)
  const token = /\/verify\/([a-z0-9]+)/.exec(mail.text)![1]
  const verified = await client.get(`/api/auth/verify?token=${token}`)
  if (verified.status !== 204) throw new Error(`verify failed: ${verified.status}`)
  const login = await client.post('/api/auth/login', { email, password })
  if (login.status !== 200) throw new Error(`login failed: ${login.status}`)
  return { client, email, password }
}

/**
 * A test app allowed to fetch from 127.0.0.1, beside a local stand-in `server` (its URLs handed
 * over by `env`), with one signed-up, logged-in user; closing the app stops the server too.
 * In a test file: `beforeAll(async () => ({ server, alice } = t = await startTestAppBeside(await startX())), 60_000)`.
 */
export async function startTestAppBeside<S extends { stop(): unknown }>(
  server: S,
  env: (server: S) => Record<string, string> = () => ({}),
  queue?: TestQueueOptions,
) {
  let t: TestApp
  try {
    t = await createTestApp({ env: { FETCH_ALLOW_HOSTS: '127.0.0.1', ...env(server) }, queue })
  } catch (err) {
    await server.stop()
    throw err
  }
  const { client: alice } = await signUp(t)
  return {
    ...t,
    server,
    alice,
    async close() {
      await t.close()
      await server.stop()
    },
  }
}

/**
 * Serves a test app on 127.0.0.1 with a random port (Bun.serve with hono/bun's
 * WebSocket handler), for tests that open real sockets; stop it with `server.stop(true)`.
 */
export function serveTestApp(t: TestApp) {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: t.app.fetch, websocket })
  t.ctx.hub.attach(server)
  return server
}

/**
 * The newest mail to `email` in the test app's outbox that was not there when
 * called with `after` (default: any), waiting for the mail job to send it.
 */
export async function waitForMail(t: Pick<TestApp, 'outbox'>, email: string, opts: { after?: number; timeoutMs?: number } = {}) {
  const { after = 0, timeoutMs = 60_000 } = opts
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const mail = t.outbox.slice(after).findLast((m) => m.to === email)
    if (mail) return mail
    if (Date.now() > deadline) throw new Error(`no mail to ${email} within ${timeoutMs} ms`)
    await Bun.sleep(10)
  }
}
