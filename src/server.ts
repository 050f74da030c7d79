import { websocket } from 'hono/bun'
import { createApp } from './app.ts'
import type { AppContext } from './context.ts'
import { createContext } from './compose.ts'
import { openDatabase, type Database } from './db/client.ts'
import { Cipher, loadSecret } from './lib/secret.ts'
import { parseAllowList } from './lib/url-guard.ts'
import { Toolbox } from './tools/toolbox.ts'
import type { Env } from './env.ts'
import { deleteExpiredSessions } from './auth/session.ts'
import { log, errorFields } from './lib/logger.ts'
import { listenOrigin } from './lib/origin.ts'
import { attachPgBridge } from './ws/pg-bridge.ts'
import { MULTIPART_FIELDS_ALLOWANCE } from './lib/multipart.ts'
import { serveAdminChannel } from './admin/channel.ts'

/** How long requests in flight may take to finish at shutdown before their connections are cut. */
const STOP_REQUESTS_MS = 5_000

export interface RunningServer {
  port: number
  databaseKind: 'pglite' | 'postgres'
  ctx: AppContext
  stop(): Promise<void>
}

/**
 * Opens everything the app needs, serves, finds the tools, then starts the jobs (each feature's
 * start-up work is its job module's hook, src/jobs/registry.ts). Used by
 * main.ts and by process-level tests.
 */
export async function startServer(env: Env, opts: { webRoot?: string } = {}): Promise<RunningServer> {
  // open: the tools are looked for while the database opens (running yt-dlp and ffmpeg to read
  // their versions, and at a first start the managed yt-dlp's self-test, runs beside the
  // database's start: docs/decisions/311); health says `starting` until both are done
  const cipher = new Cipher(loadSecret(env.APP_SECRET, env.DATA_DIR))
  const allow = parseAllowList(env.FETCH_ALLOW_HOSTS)
  let opened: Database | undefined
  const tools = new Toolbox(env, {
    db: () => {
      if (!opened) throw new Error('the database is not open yet')
      return opened.db
    },
    cipher,
    allow,
  })
  const toolsFound = tools.init()
  // a failure is met where it is awaited below (not reported as unhandled while the database opens)
  toolsFound.catch(() => {})
  const database = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR })
  opened = database
  const { ctx, ...jobs } = createContext(env, { database, overrides: { cipher, allow, tools } })
  // with PostgreSQL, hub messages reach the sockets of every app process on the database
  const bridge = env.DATABASE_URL ? await attachPgBridge(ctx.hub, env.DATABASE_URL) : null
  // serve
  const server = Bun.serve({
    port: env.PORT,
    hostname: env.HOST,
    fetch: createApp(ctx, opts).fetch,
    websocket,
    maxRequestBodySize: env.MAX_UPLOAD_BYTES + MULTIPART_FIELDS_ALLOWANCE,
    // look-ups that run yt-dlp answer within LOOKUP_TIMEOUT_SECONDS (at most 55), before this cuts them
    idleTimeout: 60,
  })
  ctx.hub.attach(server)
  // mail links never take their host from a request (src/lib/origin.ts, mailOrigin): say where they point, once
  if (!env.PUBLIC_URL) {
    log.warn('PUBLIC_URL is not set: links in e-mails point at the address this server listens on, never at the host a request names; set PUBLIC_URL to the address people open Tunefeed at', {
      url: listenOrigin(server, env),
    })
  }
  // the tools, looked for since the start (above)
  await toolsFound
  // the local admin channel: scripts/admin.ts runs its commands in this process (src/admin/channel.ts)
  const { runCommand } = await import('./admin/commands/index.ts')
  const channel = await serveAdminChannel(env.DATA_DIR, (argv, io) => runCommand(argv, io, env, ctx))
  // start: the worker runs once the database is open and the hub can reach sockets
  await jobs.start()
  const sweep = setInterval(
    () => deleteExpiredSessions(ctx.db).catch((err) => log.warn('session sweep failed', errorFields(err))),
    60 * 60 * 1000,
  )
  return {
    port: server.port!,
    databaseKind: database.kind,
    ctx,
    // stop: listen sockets first (1001, so clients reconnect elsewhere; an open socket kept
    // Bun's graceful stop waiting), requests in flight get STOP_REQUESTS_MS, then the jobs
    // (running ones go back to the queue) and the database
    async stop() {
      clearInterval(sweep)
      channel?.stop()
      ctx.hub.closeAll()
      await Promise.race([server.stop(), Bun.sleep(STOP_REQUESTS_MS)])
      await server.stop(true)
      await jobs.stop()
      await bridge?.close()
      await database.close()
    },
  }
}
