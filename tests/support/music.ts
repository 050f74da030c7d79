import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { eq } from 'drizzle-orm'
import { startTestAppBeside, type Client, type TestApp, type TestQueueOptions } from './app.ts'
import { startMediaServer, testMedia, type MediaServer, type TestMedia } from './media.ts'
import { emlFor } from './smtp.ts'
import { users } from '../../src/auth/tables.ts'
import type { MusicJob } from '../../src/music/schema.ts'

/** The multipart body of POST /api/music/jobs/create (or /tags): text fields, and a file from disk. */
export function musicForm(fields: Record<string, string>, file?: { path: string; name?: string; type?: string }): FormData {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  if (file) form.append('file', Bun.file(file.path, { type: file.type ?? 'application/octet-stream' }), file.name ?? file.path.split('/').pop())
  return form
}

export function postForm(client: Client, path: string, form: FormData) {
  return client.request(path, { method: 'POST', body: form })
}

export async function listJobs(client: Client, page = 1, perPage = 50): Promise<{ jobs: MusicJob[]; totalPages: number }> {
  const res = await client.get(`/api/music/jobs/list?page=${page}&per_page=${perPage}`)
  if (res.status !== 200) throw new Error(`list failed: ${res.status} ${await res.text()}`)
  return res.json() as Promise<{ jobs: MusicJob[]; totalPages: number }>
}

/** Polls the list until the job is completed or failed. */
export async function waitForJob(client: Client, id: string, timeoutMs = 30_000): Promise<MusicJob> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const job = (await listJobs(client)).jobs.find((j) => j.id === id)
    if (!job) throw new Error(`job ${id} is not listed`)
    if (job.completed || job.failed) return job
    if (Date.now() > until) throw new Error(`job ${id} did not finish in ${timeoutMs} ms: ${JSON.stringify(job)}`)
    await Bun.sleep(100)
  }
}

/** Polls the list until the job's WebDAV upload (its own job, after completion) is `uploaded` or `failed`. */
export async function waitForWebdav(client: Client, id: string, timeoutMs = 30_000): Promise<MusicJob> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const job = (await listJobs(client)).jobs.find((j) => j.id === id)
    if (!job) throw new Error(`job ${id} is not listed`)
    if (job.webdav) return job
    if (Date.now() > until) throw new Error(`job ${id} got no WebDAV outcome in ${timeoutMs} ms: ${JSON.stringify(job)}`)
    await Bun.sleep(100)
  }
}

/** Every file under `dir`, relative, sorted. */
export function filesUnder(dir: string): string[] {
  const walk = (d: string): string[] => {
    let names: string[]
    try {
      names = readdirSync(d)
    } catch {
      return []
    }
    return names.flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [relative(dir, join(d, n))]))
  }
  return walk(dir).sort()
}

/** The signed-in client's user id (job folders are DATA_DIR/music/<userId>/<jobId>). */
export async function userIdOf(t: TestApp, client: Client): Promise<string> {
  const { email } = (await (await client.get('/api/auth/session')).json()) as { email: string }
  const [row] = await t.ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email))
  return row!.id
}

/** PIDs of yt-dlp/ffmpeg processes whose command line mentions `dir` (from /proc). */
export function toolProcesses(dir: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((pid) => {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        return /yt-dlp|ffmpeg/.test(cmd) && cmd.includes(dir)
      } catch {
        return false
      }
    })
    .map(Number)
}

/**
 * Signs up on a server process (no SMTP: the verification mail is read from
 * DATA_DIR/mail), verifies and logs in; returns the session cookie.
 */
export async function signUpOverHttp(base: string, dataDir: string): Promise<string> {
  const email = `user-${crypto.randomUUID().slice(0, 8)}@example.com`
  const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const created = await fetch(`${base}/api/auth/create`, json({ email, password: 'password123' }))
  if (created.status !== 204) throw new Error(`create failed: ${created.status}`)
  const mailDir = join(dataDir, 'mail')
  const eml = await emlFor(mailDir, email)
  const token = /\/verify\/([a-z0-9]+)/.exec(eml)![1]
  await fetch(`${base}/api/auth/verify?token=${token}`)
  const login = await fetch(`${base}/api/auth/login`, json({ email, password: 'password123' }))
  if (login.status !== 200) throw new Error(`login failed: ${login.status}`)
  return login.headers.get('set-cookie')!.split(';')[0]!
}

export interface MusicTestApp extends TestApp {
  /** Serves `files` (and whatever a test adds) on 127.0.0.1, which FETCH_ALLOW_HOSTS lets the app fetch. */
  media: MediaServer
  files: TestMedia
  /** A signed-up, logged-in user. */
  alice: Client
}

/**
 * A test app allowed to fetch from a fresh media server on 127.0.0.1, with one
 * signed-up user; closing the app stops the media server too. In a test file:
 * `beforeAll(async () => ({ media, files, alice } = t = await startMusicTestApp()), 60_000)`.
 */
export async function startMusicTestApp(env: Record<string, string> = {}, queue?: TestQueueOptions): Promise<MusicTestApp> {
  const [media, files] = await Promise.all([startMediaServer(), testMedia()])
  const { server, ...t } = await startTestAppBeside(media, () => env, queue)
  return { ...t, media, files }
}
