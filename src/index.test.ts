import { emlFor } from '../tests/support/smtp.ts'
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HttpClient, signUp as deploySignUp } from '../tests/deploy/support.ts'
import { run, startServerProcess, type ServerProcess } from '../tests/support/server-process.ts'
import { until } from '../tests/support/wait.ts'

// bun's default is 5 s per test; password hashing and databases need more on a busy machine
setDefaultTimeout(30_000)

// Real `bun src/index.ts` processes on 127.0.0.1 (random ports), sharing one
// DATA_DIR so PGlite's first start (initdb, several seconds) happens once.

const dataDir = mkdtempSync(join(tmpdir(), 'tunefeed-process-'))
const lockFile = join(dataDir, 'db.lock')
let first: ServerProcess | undefined

beforeAll(async () => {
  // as an older version left it: start-up makes it private again
  chmodSync(dataDir, 0o755)
  first = await startServerProcess({ DATA_DIR: dataDir }, 120_000)
}, 130_000)

afterAll(async () => {
  if (first && first.proc.exitCode === null) await first.stop('SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
})

describe('the server process', () => {
  test('refuses to start under Node with the Bun message', async () => {
    const node = Bun.which('node')
    expect(node).toBeString()
    const { code, stderr, stdout } = await run([node!, 'src/index.ts'])
    expect(code).toBe(1)
    expect(stderr).toContain('Tunefeed runs on Bun, not Node.')
    expect(stdout).toBe('')
  })

  test('serves on loopback and holds the data folder lock', async () => {
    const res = await fetch(`${first!.url}/api/health`)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ status: 'ok', database: 'ok' })
    expect(readFileSync(lockFile, 'utf8')).toBe(String(first!.proc.pid))
  })

  test('a second process on the same DATA_DIR is refused by the lock file', async () => {
    await expect(startServerProcess({ DATA_DIR: dataDir }, 60_000)).rejects.toThrow(/exited with 1[\s\S]*another Tunefeed is using this data folder/)
    // the first one is unharmed and still owns the lock
    expect((await fetch(`${first!.url}/api/health`)).status).toBe(200)
    expect(readFileSync(lockFile, 'utf8')).toBe(String(first!.proc.pid))
  }, 70_000)

  test('without SMTP_URL mail lands as .eml under DATA_DIR/mail, and its link works', async () => {
    const email = `eml-${crypto.randomUUID().slice(0, 8)}@example.com`
    const res = await fetch(`${first!.url}/api/auth/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'password123' }),
    })
    expect(res.status).toBe(204)
    const mailDir = join(dataDir, 'mail')
    // the mail job writes it a moment after the 204
    const eml = await emlFor(mailDir, email)
    const files = readdirSync(mailDir).filter((f) => f.endsWith('.eml'))
    expect(eml).toContain('Subject: Verify your Tunefeed account')
    const token = new RegExp(`http://127\\.0\\.0\\.1:${first!.port}/verify/([a-z2-7]+)`).exec(eml!)?.[1]
    expect(token).toBeString()
    expect((await fetch(`${first!.url}/api/auth/verify?token=${token}`)).status).toBe(204)
    const login = await fetch(`${first!.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'password123' }),
    })
    expect(login.status).toBe(200)
    // the log names the file and, with no SMTP, the verification link itself (decision 181)
    const saved = await until('the mail line', () => first!.stdout().split('\n').find((l) => l.includes('mail saved (no SMTP_URL)') && l.includes(email)))
    expect(JSON.parse(saved!)).toMatchObject({ level: 'info', to: email, link: `http://127.0.0.1:${first!.port}/verify/${token}` })
    // a reset code never: the reset mail's line names only its file
    const mailLines = () => first!.stdout().split('\n').filter((l) => l.includes('mail saved (no SMTP_URL)')).length
    const before = mailLines()
    const reset = await fetch(`${first!.url}/api/auth/sendreset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) })
    expect(reset.status).toBeLessThan(300)
    const resetMail = await until('the reset mail', () =>
      readdirSync(mailDir)
        .map((f) => readFileSync(join(mailDir, f), 'utf8'))
        .find((text) => text.includes(`To: ${email}`) && text.includes('reset code')),
    )
    const code = /reset code is: (\S+)/.exec(resetMail)?.[1]
    expect(code).toBeString()
    await until('the reset mail line', () => mailLines() > before)
    expect(first!.stdout()).not.toContain(code!)
    // the mail is the owner's alone
    for (const f of files) expect(statSync(join(mailDir, f)).mode & 0o777).toBe(0o600)
    // the link's page path goes into the request log without its token
    await fetch(`${first!.url}/verify/${token}`)
    await Bun.sleep(200) // request lines are written every 50 ms
    expect(first!.stdout()).toContain('"path":"/verify/[redacted]"')
  })

  test('without PUBLIC_URL a sign-up naming another host (Host, X-Forwarded-Host) mails a link to the listening address; the log says so once', async () => {
    const mailDir = join(dataDir, 'mail')
    const spoofs: Record<string, string>[] = [{ host: 'evil.example' }, { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' }]
    for (const headers of spoofs) {
      const email = `host-${crypto.randomUUID().slice(0, 8)}@example.com`
      // headers are only strings: the request itself goes to the server on 127.0.0.1
      const res = await fetch(`${first!.url}/api/auth/create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ email, password: 'password123' }),
      })
      expect(res.status).toBe(204)
      // the mail is sent by its job, just after the answer
      const eml = await emlFor(mailDir, email)
      expect(eml).not.toContain('evil.example')
      expect(eml).toMatch(new RegExp(`http://127\\.0\\.0\\.1:${first!.port}/verify/[a-z2-7]+`))
    }
    const said = first!.stderr().split('\n').filter((line) => line.includes('PUBLIC_URL is not set'))
    expect(said).toHaveLength(1)
    expect(said[0]).toContain(`"url":"http://127.0.0.1:${first!.port}"`)
  })

  test('DATA_DIR is 0700 and nothing in it is readable by group or others (umask 077)', () => {
    expect(statSync(dataDir).mode & 0o777).toBe(0o700)
    const open: string[] = []
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name)
        const st = statSync(path)
        if (st.mode & 0o077) open.push(`${path} ${(st.mode & 0o777).toString(8)}`)
        if (st.isDirectory()) walk(path)
      }
    }
    walk(dataDir)
    // PGlite's database files, the lock, the queue and the mail folder included
    expect(readdirSync(join(dataDir, 'db')).length).toBeGreaterThan(5)
    expect(open).toEqual([])
  })

  test('no log line holds a podcast feed secret: /feeds paths are logged redacted', async () => {
    const client = new HttpClient(first!.url)
    const email = `feeds-${crypto.randomUUID().slice(0, 8)}@example.com`
    await deploySignUp(client, join(dataDir, 'mail'), email)
    const { allUrl, opmlUrl } = (await (await client.request('/api/youtube/podcasts')).json()) as { allUrl: string; opmlUrl: string }
    const secret = /\/feeds\/([\w-]+)\//.exec(allUrl)![1]!
    expect((await fetch(`${first!.url}${new URL(allUrl).pathname}`)).status).toBe(200)
    expect((await fetch(`${first!.url}${new URL(opmlUrl).pathname}`)).status).toBe(200)
    // a failing feed request too (an unknown episode): 404, logged at info
    expect((await fetch(`${first!.url}/feeds/${secret}/audio/abcdefghijk.mp3`)).status).toBe(404)
    await Bun.sleep(200) // request lines are written every 50 ms
    const log = first!.stdout() + first!.stderr()
    expect(log).toContain('"path":"/feeds/[redacted]/all.xml"')
    expect(log).toContain('"path":"/feeds/[redacted]/audio/abcdefghijk.mp3"')
    expect(log).not.toContain(secret)
  })

  test('requests with X-Forwarded-For while TRUST_PROXY is off: the log warns once', async () => {
    const warned = () => first!.stderr().split('\n').filter((l) => l.includes('X-Forwarded-For but TRUST_PROXY is off'))
    expect(warned()).toHaveLength(0)
    for (let i = 0; i < 3; i++) await fetch(`${first!.url}/api/health`, { headers: { 'x-forwarded-for': `203.0.113.${i + 1}` } })
    await until('the warning', () => warned().length > 0 || undefined)
    await Bun.sleep(100)
    expect(warned()).toHaveLength(1)
    expect(JSON.parse(warned()[0]!)).toMatchObject({ level: 'warn' })
  })

  test('SIGTERM with listen sockets open: they close with 1001, exit 0 within 10 s, lock released, data kept', async () => {
    const client = new HttpClient(first!.url)
    const email = `sock-${crypto.randomUUID().slice(0, 8)}@example.com`
    await deploySignUp(client, join(dataDir, 'mail'), email)
    const closes: Promise<number>[] = []
    for (const path of ['/api/music/jobs/listen', '/api/youtube/channel/listen', '/api/music/jobs/listen']) {
      const ws = new WebSocket(first!.url.replace(/^http/, 'ws') + path, { headers: { cookie: client.cookieHeader } } as never)
      closes.push(new Promise((resolve) => (ws.onclose = (e) => resolve(e.code))))
      await new Promise((resolve, reject) => ((ws.onopen = resolve), (ws.onerror = reject)))
    }
    const started = performance.now()
    const code = await first!.stop('SIGTERM')
    const seconds = (performance.now() - started) / 1000
    expect(code).toBe(0)
    expect(seconds).toBeLessThan(10)
    expect(await Promise.all(closes)).toEqual([1001, 1001, 1001])
    expect(first!.stdout()).toContain('"msg":"shutting down","signal":"SIGTERM"')
    expect(existsSync(lockFile)).toBe(false)
    await expect(fetch(`${first!.url}/api/health`)).rejects.toThrow()

    // the next process reopens the same data (the account made above is still there)
    const next = await startServerProcess({ DATA_DIR: dataDir }, 60_000)
    try {
      const res = await fetch(`${next.url}/api/auth/create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'first@example.com', password: 'password123' }),
      })
      expect(res.status).toBe(204)
    } finally {
      expect(await next.stop('SIGINT')).toBe(0)
    }
  }, 90_000)

  test('a lock left by a killed process is taken over', async () => {
    const crashed = await startServerProcess({ DATA_DIR: dataDir }, 60_000)
    await crashed.stop('SIGKILL')
    expect(existsSync(lockFile)).toBe(true)
    const next = await startServerProcess({ DATA_DIR: dataDir }, 60_000)
    try {
      expect(readFileSync(lockFile, 'utf8')).toBe(String(next.proc.pid))
      const res = await fetch(`${next.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'first@example.com', password: 'password123' }),
      })
      // still the same database: the (unverified) account from before exists and knows its password
      // (signing up again would not tell: an unverified sign-up is replaced, 204, docs/api.md#auth)
      expect(res.status).toBe(401)
      expect(await res.json()).toEqual({ detail: 'Account is unverified.' })
    } finally {
      expect(await next.stop()).toBe(0)
    }
  }, 120_000)
})
