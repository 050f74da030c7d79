import { chmodSync, existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { errorFields, log } from '../lib/logger.ts'

/**
 * The local admin channel: a Unix socket in DATA_DIR (mode 0600, so only the
 * host account that runs the server can use it) over which `scripts/admin.ts`
 * runs its commands inside the running server, when the server holds the data
 * folder (PGlite's lock) or simply runs. See docs/decisions/101-admin-channel.md.
 *
 * Protocol: `POST /run {argv}`; the answer streams one JSON object per line:
 * `{"out": line}`, `{"err": line}`, and last `{"code": n}`; empty lines keep
 * the connection alive during long commands.
 */

export const ADMIN_SOCKET = 'admin.sock'
const KEEPALIVE_MS = 5_000

export interface CommandOutput {
  out(line: string): void
  err(line: string): void
}

/** Runs one command line, writing to `io`; resolves with the exit code. */
export type CommandRunner = (argv: string[], io: CommandOutput) => Promise<number>

export const adminSocketPath = (dataDir: string) => join(dataDir, ADMIN_SOCKET)

/** Serves the channel until `stop()`. A socket file no server answers on (left by a crash) is replaced. */
export async function serveAdminChannel(dataDir: string, run: CommandRunner): Promise<{ path: string; stop(): void } | null> {
  const path = adminSocketPath(dataDir)
  mkdirSync(dataDir, { recursive: true })
  // sockaddr_un holds about 107 bytes: a deeper DATA_DIR cannot have the channel
  if (Buffer.byteLength(path) > 100) {
    log.warn('admin channel off: DATA_DIR path too long for a Unix socket', { path })
    return null
  }
  if (existsSync(path)) {
    if (await channelAnswers(path)) {
      log.warn('admin channel off: another server answers on it', { path })
      return null
    }
    rmSync(path, { force: true })
  }
  // created 0600 from the start (umask), then made sure of it
  const umask = process.umask(0o177)
  let server: ReturnType<typeof Bun.serve>
  try {
    server = Bun.serve({ unix: path, fetch: (req) => handle(req, run) })
  } finally {
    process.umask(umask)
  }
  chmodSync(path, 0o600)
  return {
    path,
    stop() {
      server.stop(true)
      rmSync(path, { force: true })
    },
  }
}

async function handle(req: Request, run: CommandRunner): Promise<Response> {
  const url = new URL(req.url)
  if (url.pathname === '/ping') return Response.json({ ok: true })
  if (req.method !== 'POST' || url.pathname !== '/run') return Response.json({ detail: 'Not found.' }, { status: 404 })
  const body = (await req.json().catch(() => null)) as { argv?: unknown } | null
  const argv = body?.argv
  if (!Array.isArray(argv) || !argv.every((a) => typeof a === 'string')) return Response.json({ detail: 'argv: Required' }, { status: 422 })
  const encoder = new TextEncoder()
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (value: object | null) => controller.enqueue(encoder.encode(value ? `${JSON.stringify(value)}\n` : '\n'))
      const keepalive = setInterval(() => send(null), KEEPALIVE_MS)
      let code = 1
      try {
        code = await run(argv as string[], { out: (line) => send({ out: line }), err: (line) => send({ err: line }) })
      } catch (err) {
        log.error('admin channel command failed', errorFields(err))
        send({ err: err instanceof Error ? err.message : String(err) })
      } finally {
        clearInterval(keepalive)
        send({ code })
        controller.close()
      }
    },
  })
  return new Response(stream, { headers: { 'content-type': 'application/x-ndjson' } })
}

async function channelAnswers(path: string): Promise<boolean> {
  try {
    const res = await fetch('http://admin/ping', { unix: path, signal: AbortSignal.timeout(2_000) })
    return res.ok
  } catch {
    return false
  }
}

/**
 * Runs `argv` in the server answering on DATA_DIR's channel, printing its
 * output to `io` as it comes; null when no server answers there.
 */
export async function runOverChannel(dataDir: string, argv: string[], io: CommandOutput): Promise<number | null> {
  const path = adminSocketPath(dataDir)
  if (!existsSync(path) || !(await channelAnswers(path))) return null
  const res = await fetch('http://admin/run', {
    unix: path,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ argv }),
  })
  if (!res.ok || !res.body) {
    io.err(`The server refused the command (${res.status}).`)
    return 1
  }
  let buffer = ''
  const decoder = new TextDecoder()
  for await (const chunk of res.body) {
    buffer += decoder.decode(chunk, { stream: true })
    let nl: number
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl)
      buffer = buffer.slice(nl + 1)
      if (!line) continue
      const msg = JSON.parse(line) as { out?: string; err?: string; code?: number }
      if (msg.out !== undefined) io.out(msg.out)
      if (msg.err !== undefined) io.err(msg.err)
      if (msg.code !== undefined) return msg.code
    }
  }
  io.err('The server closed the admin channel before the command ended.')
  return 1
}
