// Types only: what every part of the server is handed. The wiring that builds it is
// src/compose.ts (the composition root); nothing here imports a value.
import type { Db } from './db/client.ts'
import type { Env } from './env.ts'
import type { Mailer } from './lib/mailer.ts'
import type { Cipher } from './lib/secret.ts'
import type { AllowList } from './lib/url-guard.ts'
import type { Jobs } from './jobs/types.ts'
import type { Hub } from './ws/hub.ts'
import type { Toolbox } from './tools/toolbox.ts'
import type { Storage } from './storage/index.ts'

/** A message for every enabled admin: a bot-check pause (`admin.alert`) or a failing canary (`tools.canary`). */
export interface AdminAlert {
  event?: 'admin.alert' | 'tools.canary'
  title: string
  text: string
  url?: string | null
}

/** What the routers need, built once by createContext (src/compose.ts) and passed down. */
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
  /** Where kept files live (STORAGE: local disk or an S3 bucket); see src/storage/. */
  storage: Storage
  /**
   * Tells every enabled admin by e-mail and their own ntfy or webhook (src/notifications/admins.ts,
   * wired in src/compose.ts), so that lower floors such as the canary reach them. Never throws.
   */
  alertAdmins(message: AdminAlert): Promise<void>
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
    /** Set when the request came with `Authorization: Bearer` (src/auth/bearer.ts). */
    apiTokenId: string | null
  }
}
