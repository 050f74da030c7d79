import { join } from 'node:path'
import { websocket } from 'hono/bun'
import { createApp } from './app.ts'
import type { AppContext } from './context.ts'
import { openDatabase } from './db/client.ts'
import type { Env } from './env.ts'
import { createMailer } from './lib/mailer.ts'
import { Cipher, loadSecret } from './lib/secret.ts'
import { parseAllowList } from './lib/url-guard.ts'
import { deleteExpiredSessions } from './auth/session.ts'
import { log, errorFields } from './lib/logger.ts'
import { Hub } from './ws/hub.ts'
import { Toolbox } from './tools/toolbox.ts'
import { toolHealth } from './tools/health.ts'
import { attachPgBridge } from './ws/pg-bridge.ts'
import { createJobs } from './jobs/start.ts'
import { MULTIPART_FIELDS_ALLOWANCE } from './lib/multipart.ts'
import { resetStuckRefreshes } from './youtube/refresh.ts'
import { refreshCategoriesJob } from './youtube/jobs.ts'
import { youtubeVideoCategories } from './youtube/tables.ts'

export interface RunningServer {
  port: number
  databaseKind: 'pglite' | 'postgres'
  ctx: AppContext
  stop(): Promise<void>
}

/** Opens everything the app needs and starts listening. Used by index.ts and by process-level tests. */
export async function startServer(env: Env, opts: { webRoot?: string } = {}): Promise<RunningServer> {
  const database = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR })
  const cipher = new Cipher(loadSecret(env.APP_SECRET, env.DATA_DIR))
  const allow = parseAllowList(env.FETCH_ALLOW_HOSTS)
  const tools = new Toolbox(env, { db: database.db, cipher, allow })
  await tools.init()
  const ctx: AppContext = {
    env,
    db: database.db,
    mailer: createMailer({ smtpUrl: env.SMTP_URL, from: env.MAIL_FROM, dataDir: env.DATA_DIR }),
    cipher,
    allow,
    hub: new Hub(),
    jobs: undefined as never, // set by createJobs below
    health: { database: () => database.ping(), ...toolHealth(tools) },
    tools,
  }
  // with PostgreSQL, hub messages reach the sockets of every app process on the database
  const bridge = env.DATABASE_URL ? await attachPgBridge(ctx.hub, env.DATABASE_URL) : null
  // no refresh survives its process: clear `updating` before any job can start; with a shared
  // queue (QUEUE_URL) other processes may be refreshing right now, so only claims gone stale
  await resetStuckRefreshes(ctx, { staleOnly: !!env.QUEUE_URL })
  const jobs = createJobs(ctx)
  const app = createApp(ctx, opts)
  const server = Bun.serve({
    port: env.PORT,
    hostname: env.HOST,
    fetch: app.fetch,
    websocket,
    maxRequestBodySize: env.MAX_UPLOAD_BYTES + MULTIPART_FIELDS_ALLOWANCE,
    // look-ups that run yt-dlp answer within LOOKUP_TIMEOUT_SECONDS (at most 55), before this cuts them
    idleTimeout: 60,
  })
  ctx.hub.attach(server)
  // the worker starts once the database is open and the hub can reach sockets
  await jobs.start(ctx)
  // a fresh install has no category names yet: fetch them now instead of at the next daily run,
  // so the feed's 'Categories' filter appears on first use (the job id dedups across processes)
  if (env.SCHEDULER && env.YOUTUBE_API_KEY) {
    const [known] = await ctx.db.select({ id: youtubeVideoCategories.id }).from(youtubeVideoCategories).limit(1)
    if (!known) await ctx.jobs.enqueue(refreshCategoriesJob, {}, { jobId: 'youtube.refreshCategories.first-start' })
  }
  const sweep = setInterval(
    () => deleteExpiredSessions(ctx.db).catch((err) => log.warn('session sweep failed', errorFields(err))),
    60 * 60 * 1000,
  )
  return {
    port: server.port!,
    databaseKind: database.kind,
    ctx,
    async stop() {
      clearInterval(sweep)
      await server.stop()
      await jobs.stop()
      await bridge?.close()
      await database.close()
    },
  }
}

export const defaultWebRoot = join(import.meta.dir, '../web/dist')
