import { SMTPServer } from 'smtp-server'
import { createTestApp, type TestApp } from './app.ts'

/**
 * A real SMTP server on 127.0.0.1 (random port) that keeps every message it
 * receives. The app's mailer talks to it over TCP exactly as it would to a
 * production relay: `SMTP_URL=${smtp.url}`.
 *
 * STARTTLS is disabled (smtp-server's bundled certificate is expired) and the
 * URL carries `?ignoreTLS=1` so nodemailer does not try to upgrade.
 */

export interface ReceivedMail {
  /** Envelope sender. */
  from: string
  /** Envelope recipients, lower-cased. */
  to: string[]
  subject: string
  /** Decoded text/plain part ('' when there is none). */
  text: string
  /** Decoded text/html part ('' when there is none). */
  html: string
  headers: Record<string, string>
  /** The message exactly as received. */
  raw: string
  receivedAt: Date
}

export interface TestSmtp {
  /** `smtp://127.0.0.1:PORT?ignoreTLS=1`, ready for SMTP_URL. */
  url: string
  host: string
  port: number
  /** Accepted but not required (authOptional). */
  username: string
  password: string
  /** Every message received so far, oldest first. */
  messages: ReceivedMail[]
  /** Messages received for `to` so far. */
  mailsTo(to: string): ReceivedMail[]
  /**
   * The next message to `to` not yet returned by this function: resolves at
   * once when one is already there, else waits for it (rejects after timeoutMs).
   */
  /** The next mail to `to` not handed out yet; with `subject`, the next with that subject (others stay for later calls). */
  nextMail(to: string, opts?: { timeoutMs?: number; subject?: string }): Promise<ReceivedMail>
  /** Forget every message (and what nextMail has handed out). */
  clear(): void
  stop(): Promise<void>
}

export async function startSmtp(opts: { username?: string; password?: string; port?: number } = {}): Promise<TestSmtp> {
  const username = opts.username ?? 'mailer'
  const password = opts.password ?? 'mailer-password'
  const messages: ReceivedMail[] = []
  const handedOut = new WeakSet<ReceivedMail>()
  const waiters = new Set<() => void>()

  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === username && auth.password === password) callback(null, { user: username })
      else callback(new Error('Invalid username or password'))
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('error', callback)
      stream.on('end', () => {
        try {
          const raw = Buffer.concat(chunks).toString('utf8')
          const parsed = parseMessage(raw)
          messages.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            subject: parsed.headers.subject ?? '',
            text: parsed.text,
            html: parsed.html,
            headers: parsed.headers,
            raw,
            receivedAt: new Date(),
          })
          for (const wake of waiters) wake()
          callback()
        } catch (err) {
          callback(err as Error)
        }
      })
    },
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  // smtp-server logs connection errors on 'error' otherwise
  server.on('error', () => {})
  const port = (server.server.address() as { port: number }).port

  const mailsTo = (to: string) => messages.filter((m) => m.to.includes(to.toLowerCase()))

  return {
    url: `smtp://127.0.0.1:${port}?ignoreTLS=1`,
    host: '127.0.0.1',
    port,
    username,
    password,
    messages,
    mailsTo,
    nextMail(to, { timeoutMs = 30_000, subject } = {}) {
      return new Promise<ReceivedMail>((resolve, reject) => {
        const take = () => {
          const mail = mailsTo(to).find((m) => !handedOut.has(m) && (subject === undefined || m.subject === subject))
          if (!mail) return false
          handedOut.add(mail)
          cleanup()
          resolve(mail)
          return true
        }
        const timer = setTimeout(() => {
          cleanup()
          reject(new Error(`no mail to ${to} within ${timeoutMs} ms`))
        }, timeoutMs)
        const wake = () => void take()
        const cleanup = () => {
          clearTimeout(timer)
          waiters.delete(wake)
        }
        waiters.add(wake)
        take()
      })
    },
    clear() {
      messages.length = 0
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** The `/verify/<token>` link of a verification mail (from its text part). */
export function verifyLink(mail: ReceivedMail): string {
  const link = /https?:\/\/\S+\/verify\/[A-Za-z0-9]+/.exec(mail.text)?.[0]
  if (!link) throw new Error(`no verify link in mail "${mail.subject}":\n${mail.text}`)
  return link
}

/** The token at the end of the verify link. */
export function verifyToken(mail: ReceivedMail): string {
  return verifyLink(mail).split('/verify/')[1]!
}

/** The reset code of a password reset mail ("Your password reset code is: XXXX"). */
export function resetCode(mail: ReceivedMail): string {
  const code = /reset code is:\s*([A-Z0-9]+)/i.exec(mail.text)?.[1]
  if (!code) throw new Error(`no reset code in mail "${mail.subject}":\n${mail.text}`)
  return code
}

// --- minimal MIME reading: enough for what nodemailer sends (multipart, QP, base64) ---

interface Part {
  headers: Record<string, string>
  text: string
  html: string
}

function splitHeaders(raw: string): { headers: Record<string, string>; body: string } {
  const normalized = raw.replace(/\r\n/g, '\n')
  const end = normalized.indexOf('\n\n')
  const head = end === -1 ? normalized : normalized.slice(0, end)
  const body = end === -1 ? '' : normalized.slice(end + 2)
  const headers: Record<string, string> = {}
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = decodeWords(line.slice(colon + 1).trim())
  }
  return { headers, body }
}

/** RFC 2047 encoded words (=?utf-8?Q?...?= / =?utf-8?B?...?=) in headers. */
function decodeWords(value: string): string {
  return value.replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=\s*/g, (_, _charset: string, enc: string, text: string) =>
    enc.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : decodeQuotedPrintable(text.replace(/_/g, ' ')),
  )
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = []
  const soft = text.replace(/=\n/g, '')
  for (let i = 0; i < soft.length; i++) {
    const hex = soft.slice(i + 1, i + 3)
    if (soft[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16))
      i += 2
    } else bytes.push(...Buffer.from(soft[i]!, 'utf8'))
  }
  return Buffer.from(bytes).toString('utf8')
}

function decodeBody(body: string, encoding = ''): string {
  switch (encoding.toLowerCase()) {
    case 'quoted-printable':
      return decodeQuotedPrintable(body)
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
    default:
      return body
  }
}

function parseMessage(raw: string): Part {
  const { headers, body } = splitHeaders(raw)
  const type = headers['content-type'] ?? 'text/plain'
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1]
  if (/^multipart\//i.test(type) && boundary) {
    const out: Part = { headers, text: '', html: '' }
    const pieces = body.split(`--${boundary}`).slice(1)
    for (const piece of pieces) {
      if (piece.startsWith('--')) break
      const part = parseMessage(piece.replace(/^\n/, ''))
      out.text ||= part.text
      out.html ||= part.html
    }
    return out
  }
  const decoded = decodeBody(body, headers['content-transfer-encoding']).replace(/\n$/, '')
  if (/^text\/html/i.test(type)) return { headers, text: '', html: decoded }
  return { headers, text: decoded, html: '' }
}

/**
 * A test app that mails through a fresh SMTP server; closing the app stops
 * the server. In a test file: `beforeAll(async () => ({ t, smtp } = await createSmtpTestApp()))`.
 */
export async function createSmtpTestApp(): Promise<{ t: TestApp; smtp: TestSmtp }> {
  const smtp = await startSmtp()
  const t = await createTestApp({ smtpUrl: smtp.url })
  const close = t.close
  t.close = async () => {
    await close()
    await smtp.stop()
  }
  return { t, smtp }
}

/**
 * A TCP server on 127.0.0.1 that accepts connections and never answers (no
 * SMTP greeting): a mail relay that hangs. `stop()` drops the held connections.
 */
export async function startSilentServer(port = 0): Promise<{ port: number; connections: number; stop(): Promise<void> }> {
  const { createServer } = await import('node:net')
  const sockets = new Set<import('node:net').Socket>()
  const state = { connections: 0 }
  const server = createServer((socket) => {
    state.connections++
    sockets.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve())
  })
  return {
    port: (server.address() as { port: number }).port,
    get connections() {
      return state.connections
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

/** A loopback port nothing listens on (refuses connections): taken from a server started and stopped. */
export async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net')
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/**
 * The newest .eml saved for `email` under `mailDir` (mail without SMTP_URL), waiting for the
 * mail job to write it (mail is queued, not sent inside the request).
 */
export async function emlFor(mailDir: string, email: string, timeoutMs = 60_000): Promise<string> {
  const { existsSync, readdirSync, readFileSync } = await import('node:fs')
  const { join } = await import('node:path')
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const mails = existsSync(mailDir)
      ? readdirSync(mailDir)
          .filter((f) => f.endsWith('.eml'))
          .sort()
          .map((f) => readFileSync(join(mailDir, f), 'utf8'))
          .filter((text) => text.includes(`To: ${email}`))
      : []
    if (mails.length) return mails.at(-1)!
    if (Date.now() > deadline) throw new Error(`no mail for ${email} in ${mailDir} within ${timeoutMs} ms`)
    await Bun.sleep(25)
  }
}
