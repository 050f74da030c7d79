// The composition root: the one place that builds an AppContext (src/context.ts holds only its
// types) and wires the features into the lower floors (lib/, db/, jobs/, tools/, storage/, ws/),
// which import no feature folder themselves (biome.json, README "Server layout").
import type { Database } from './db/client.ts'
import type { Env } from './env.ts'
import type { AppContext } from './context.ts'
import { createMailer, type Mailer } from './lib/mailer.ts'
import { Cipher, loadSecret } from './lib/secret.ts'
import { parseAllowList } from './lib/url-guard.ts'
import type { QueueConfig } from './jobs/queue.ts'
import { createJobs } from './jobs/start.ts'
import { Hub } from './ws/hub.ts'
import { Toolbox } from './tools/toolbox.ts'
import { toolHealth } from './tools/health.ts'
import { createStorage } from './storage/index.ts'
import { notifyAdmins } from './notifications/admins.ts'
import { pauseNotification } from './notifications/pace-notice.ts'
import { jobModules } from './jobs/registry.ts'

/** What createContext needs besides the environment; tests bring their own queue, mailer or parts. */
export interface ContextDeps {
  database: Pick<Database, 'db' | 'ping'>
  /** Default: SMTP_URL, or files under DATA_DIR (src/lib/mailer.ts). */
  mailer?: Mailer
  /** Queue settings over the ones from env (tests: own file and queue name). */
  queue?: Partial<QueueConfig>
  /** Parts that replace the built ones (a test's own `jobs` means no queue is built). */
  overrides?: Partial<AppContext>
}

/** A complete context, and the queue's worker to start once the app serves (and stop on shutdown). */
export interface CreatedContext {
  ctx: AppContext
  /** Starts the job worker and the job modules' start-up hooks (src/jobs/registry.ts). */
  start(): Promise<void>
  stop(): Promise<void>
}

/** The one way to build an AppContext: the server (src/server.ts) and tests (tests/support/app.ts). */
export function createContext(env: Env, deps: ContextDeps): CreatedContext {
  const { database, overrides = {} } = deps
  const cipher = overrides.cipher ?? new Cipher(loadSecret(env.APP_SECRET, env.DATA_DIR))
  const allow = overrides.allow ?? parseAllowList(env.FETCH_ALLOW_HOSTS)
  // found by `await ctx.tools.init()` before the app serves (src/server.ts, tests/support/app.ts)
  const tools = overrides.tools ?? new Toolbox(env, { db: database.db, cipher, allow })
  const base = {
    env,
    db: database.db,
    mailer: deps.mailer ?? createMailer({ smtpUrl: env.SMTP_URL, from: env.MAIL_FROM, dataDir: env.DATA_DIR }),
    cipher,
    allow,
    hub: new Hub(),
    health: { database: () => database.ping(), ...toolHealth(tools) } as AppContext['health'],
    tools,
    storage: createStorage(env),
    ...overrides,
  }
  const queue = overrides.jobs ? null : createJobs(base, { modules: jobModules, ...deps.queue })
  const ctx: AppContext = {
    ...base,
    jobs: overrides.jobs ?? queue!,
    alertAdmins: overrides.alertAdmins ?? ((message) => notifyAdmins(ctx, message)),
  }
  // one message to the admins per bot-check pause (src/tools/pace.ts), from the process that started it
  ctx.tools.pace.onPause ??= (pause) => ctx.alertAdmins(pauseNotification(ctx, pause))
  return {
    ctx,
    start: async () => {
      ctx.storage.start()
      await queue?.start(ctx)
    },
    stop: async () => {
      ctx.storage.stop()
      await queue?.stop()
    },
  }
}
