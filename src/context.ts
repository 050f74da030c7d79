import type { Db } from './db/client.ts'
import type { Env } from './env.ts'
import type { Mailer } from './lib/mailer.ts'
import type { Cipher } from './lib/secret.ts'
import type { AllowList } from './lib/url-guard.ts'
import type { Jobs } from './jobs/types.ts'
import type { Hub } from './ws/hub.ts'
import type { Toolbox } from './tools/toolbox.ts'

/** What the routers need, built once by index.ts (or a test) and passed down. */
export interface AppContext {
  env: Env
  db: Db
  mailer: Mailer
  cipher: Cipher
  /** Outbound URL guard allow-list (FETCH_ALLOW_HOSTS). */
  allow: AllowList
  /** Background jobs (bunqueue); see src/jobs/. */
  jobs: Jobs
  /** WebSocket topic fan-out; see src/ws/hub.ts. */
  hub: Hub
  /** Named health checks reported by GET /api/health (database, queue, ...). */
  health: Record<string, () => Promise<void>>
  /** yt-dlp, ffmpeg, the JS runtime and cookies; see src/tools/toolbox.ts. */
  tools: Toolbox
}

export interface SessionUser {
  id: string
  email: string
  admin: boolean
}

/** Hono env for every router: the session middleware fills `user`. */
export type AppEnv = {
  Variables: {
    user: SessionUser | null
    sessionId: string | null
  }
}
