import { cpus } from 'node:os'
import { z } from 'zod'
import { DENO_RELEASE_URL as PINNED_DENO_RELEASE_URL } from './tools/deno-pin.ts'

/**
 * The only reader of `process.env`. Every setting is validated here once, at
 * start-up, so a bad value stops the app with a message naming the variable.
 */
const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .transform((v) => v === '1' || v === 'true' || v === 'yes')

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  /** Public address of the web app, used in e-mail links. Defaults to http://localhost:PORT. */
  PUBLIC_URL: z.url().optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  /** PostgreSQL connection string; when unset the embedded PGlite in DATA_DIR/db is used. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
    .optional(),
  /**
   * A bunqueue server shared by several app processes: bunqueue://[token@]host:port
   * (`bunqueue start` with BUNQUEUE_STORAGE_DRIVER=postgres). When unset the
   * queue is embedded: SQLite in DATA_DIR/queue, one app process.
   */
  QUEUE_URL: z
    .string()
    .regex(/^bunqueue:\/\/([^@/]+@)?[^:/@]+:\d+\/?$/, 'must look like bunqueue://host:port or bunqueue://token@host:port')
    .optional(),
  /** Secret for encrypting stored credentials; generated into DATA_DIR when unset. */
  APP_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** smtp://user:pass@host:port ; when unset mail is printed to the log and saved under DATA_DIR/mail. */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must start with smtp:// or smtps://')
    .optional(),
  MAIL_FROM: z.string().default('Tunefeed <no-reply@tunefeed.local>'),
  /** How long a mail that cannot be sent keeps waiting for SMTP (hours) before it is given up (docs/decisions/165). */
  MAIL_RETRY_HOURS: z.coerce.number().positive().max(24 * 30).default(24),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** Trust X-Forwarded-* headers (behind Caddy) for client IP and HTTPS detection. */
  TRUST_PROXY: bool.default(false),
  /** The admin page warns when the data folder has less free space than this (MB; 5 % on a disk under 20 times this). */
  DISK_FREE_WARN_MB: z.coerce.number().int().positive().default(1024),
  /** Largest accepted upload in bytes. */
  MAX_UPLOAD_BYTES: z.coerce.number().int().positive().default(200 * 1024 * 1024),
  /** Largest accepted JSON body in bytes. */
  MAX_JSON_BYTES: z.coerce.number().int().positive().default(64 * 1024),
  /** Attempts per window for login, create, sendreset and reset, per IP and per email. */
  RATE_LIMIT_MAX: z.coerce.number().int().positive().default(10),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().positive().default(15 * 60),
  /** An ffmpeg to use as is; unset: `ffmpeg` on PATH, else the one shipped in an npm package. */
  FFMPEG_PATH: z.string().optional(),
  /** A yt-dlp to use as is; when set, the managed copy under DATA_DIR/tools is off. */
  YTDLP_PATH: z.string().optional(),
  /** The managed yt-dlp's release channel; `off`: no downloads, the yt-dlp on PATH is used. */
  YTDLP_UPDATE: z.enum(['stable', 'nightly', 'off']).default('stable'),
  /** Where release assets and their SHA2-256SUMS are fetched (`<url>/<asset>`); default per channel. */
  YTDLP_RELEASE_URL: z.url().optional(),
  /** The OpenPGP public key (armored, or a file holding it) that must have signed a release's SHA2-256SUMS; unset: yt-dlp's own, pinned in src/tools/signing-key.ts. */
  YTDLP_SIGNING_KEY: z.string().optional(),
  /** A public video extracted (metadata and formats, no download) daily and after each yt-dlp update, to prove downloads still work. */
  YTDLP_CANARY_URL: z.url({ protocol: /^https?$/ }).default('https://www.youtube.com/watch?v=jNQXAC9IVRw'),
  /**
   * The JavaScript runtime yt-dlp solves YouTube's challenges with: `auto` (a supported Deno,
   * else a supported Node; never Bun) or `<name>:<path>` used as given (src/tools/js-runtime.ts).
   */
  YTDLP_JS_RUNTIME: z
    .string()
    .regex(/^(auto|(deno|node|quickjs|bun):.+)$/, 'must be auto, or <name>:<path> with name deno, node, quickjs or bun')
    .default('auto'),
  /** Where the managed Deno comes from: `<url>/deno-<target>.zip` and its `.sha256sum`; default: the pinned release (src/tools/deno-pin.ts). */
  DENO_RELEASE_URL: z.url().default(PINNED_DENO_RELEASE_URL),
  /** The SHA-256 (hex) the managed Deno's zip must have; default: pinned in the code for this machine's build. */
  DENO_SHA256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters')
    .transform((v) => v.toLowerCase())
    .optional(),
  /** Concurrent yt-dlp look-ups (/grouping, /lookup) in the whole app and per user. */
  LOOKUP_CONCURRENCY: z.coerce.number().int().positive().default(4),
  LOOKUP_CONCURRENCY_PER_USER: z.coerce.number().int().positive().default(2),
  /** A look-up's own time limit (at most 55 s: the server's idle timeout is 60 s, so the look-up answers first). */
  LOOKUP_TIMEOUT_SECONDS: z.coerce.number().int().positive().max(55).default(40),
  /**
   * After a bot check, YouTube extractions pause this long, app-wide (doubling on each pause
   * that follows another without a success between, up to 16 times this and at most 8 hours); 0: off.
   */
  BOT_CHECK_PAUSE_SECONDS: z.coerce.number().min(0).default(30 * 60),
  /** Least time between the starts of two YouTube extractions, app-wide (src/tools/pace.ts). */
  YTDLP_SLEEP_SECONDS: z.coerce.number().min(0).default(8),
  /** Listen mode's audio cache (DATA_DIR/audio), in MiB: least recently played removed first (src/youtube/listen/audio.ts). */
  AUDIO_CACHE_MB: z.coerce.number().positive().default(2048),
  /** Most podcast episodes (the sum of keepLast) over one person's podcasts (docs/decisions/220). */
  PODCAST_MAX_EPISODES: z.coerce.number().int().positive().default(300),
  /** Subtitle languages for podcast transcripts, in order of preference (comma list; docs/decisions/291). */
  PODCAST_SUBTITLE_LANGS: z
    .string()
    .regex(/^\s*[A-Za-z][\w-]{0,15}\s*(,\s*[A-Za-z][\w-]{0,15}\s*)*$/, 'a comma list of language codes, such as en,de')
    .default('en'),
  /** Where kept videos are written, in the media-server layout (src/youtube/keep); default DATA_DIR/videos. */
  KEEP_DIR: z.string().min(1).optional(),
  /** Keeping waits while the disk holding KEEP_DIR has less free space than this (MiB). */
  KEEP_MIN_FREE_MB: z.coerce.number().min(0).default(2048),
  /** A Jellyfin server told when kept videos come or go (POST <url>/Library/Refresh); unset: off. */
  JELLYFIN_URL: z.url({ protocol: /^https?$/ }).optional(),
  JELLYFIN_API_KEY: z.string().optional(),
  /** A Plex server told the same (GET <url>/library/sections/all/refresh); unset: off. */
  PLEX_URL: z.url({ protocol: /^https?$/ }).optional(),
  PLEX_TOKEN: z.string().optional(),
  /** Most YouTube extractions in any 60 minutes, app-wide; 0: no limit. */
  YTDLP_MAX_PER_HOUR: z.coerce.number().int().min(0).default(250),
  /** Base URL of a PO-token provider's HTTP server (bgutil-ytdlp-pot-provider); unset: off. */
  YTDLP_POT_PROVIDER_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Where the provider's yt-dlp plugin zip is fetched (HTTPS, loopback excepted); default: the pinned release. */
  YTDLP_POT_PLUGIN_URL: z.url().optional(),
  /** The plugin zip's SHA-256 (hex) when YTDLP_POT_PLUGIN_URL names another build than the pinned one. */
  YTDLP_POT_PLUGIN_SHA256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters')
    .transform((v) => v.toLowerCase())
    .optional(),
  /** The search path for tools (yt-dlp, ffmpeg), as the process got it. */
  PATH: z.string().default(''),
  JOB_CONCURRENCY: z.coerce.number().int().positive().default(Math.max(1, cpus().length)),
  /** Time limit of one WebDAV upload (a server that hangs); the upload is retried on its own, the track is ready meanwhile. */
  WEBDAV_TIMEOUT_SECONDS: z.coerce.number().positive().default(60),
  JOB_TIMEOUT_SECONDS: z.coerce.number().int().positive().default(15 * 60),
  JOB_RETENTION_DAYS: z.coerce.number().int().positive().default(30),
  /**
   * Comma-separated hosts or CIDRs the outbound URL guard lets through even
   * though they are private or loopback (tests: 127.0.0.1). Off by default.
   */
  FETCH_ALLOW_HOSTS: z.string().default(''),
  YOUTUBE_API_KEY: z.string().default(''),
  YOUTUBE_API_URL: z.url().default('https://www.googleapis.com/youtube/v3'),
  YOUTUBE_FEED_URL: z.url().default('https://www.youtube.com'),
  YOUTUBE_DAILY_QUOTA: z.coerce.number().int().positive().default(10_000),
  /** First backoff before retrying a YouTube call after a network error or 5xx (doubles each time). */
  YOUTUBE_RETRY_BASE_MS: z.coerce.number().int().min(0).default(500),
  /** Detect new uploads through the channels' free Atom feeds before spending API units. */
  YOUTUBE_USE_FEED: bool.default(true),
  /**
   * Each user's share of the daily budget: imports and hand-added channels are
   * charged what they make the app fetch (429 beyond, until the Pacific reset).
   */
  YOUTUBE_USER_DAILY_UNITS: z.coerce.number().int().positive().default(2500),
  /** Videos fetched on a channel's first refresh (later ones stop at known videos). */
  YOUTUBE_BACKFILL_VIDEOS: z.coerce.number().int().positive().default(200),
  /**
   * Demo/test only: base URL of direct media files (`<url>/<videoId>.webm`, as
   * served by scripts/fake-youtube.ts). When set, videos carry `mediaUrl`.
   */
  YOUTUBE_MEDIA_URL: z.url().optional(),
  /** MusicBrainz web service, Cover Art Archive and SponsorBlock API bases (tests: loopback stand-ins). */
  MUSICBRAINZ_URL: z.url().default('https://musicbrainz.org'),
  COVERART_URL: z.url().default('https://coverartarchive.org'),
  SPONSORBLOCK_URL: z.url().default('https://sponsor.ajay.app'),
  /** An LRCLIB-compatible lyrics service looked up once when a track finishes; `off` turns look-ups off. */
  LYRICS_URL: z.union([z.literal('off'), z.url()]).default('https://lrclib.net'),
  /** DeArrow's branding API (titles by hash prefix) and its thumbnail service (tests: loopback stand-ins). */
  DEARROW_URL: z.url().default('https://sponsor.ajay.app'),
  DEARROW_THUMB_URL: z.url().default('https://dearrow-thumb.ajay.app'),
  /** The WebSub hub that pushes new uploads of followed channels (used only with a public PUBLIC_URL). */
  WEBSUB_HUB_URL: z.url().default('https://pubsubhubbub.appspot.com/'),
  /** Tests only: lets a loopback PUBLIC_URL subscribe, so tests can run against a hub on 127.0.0.1. */
  WEBSUB_ALLOW_PRIVATE_CALLBACK: bool.default(false),
  /** The IFrame Player API script the web player loads (tests: the fake's stand-in). */
  YOUTUBE_IFRAME_API_URL: z.url().default('https://www.youtube.com/iframe_api'),
  /** Music jobs one user may have waiting or running at once (429 beyond). */
  MAX_JOBS_PER_USER: z.coerce.number().int().positive().default(50),
  /** Bytes one user's music files (uploads, artwork, MP3s) may take on disk (413 beyond). */
  MAX_STORED_BYTES_PER_USER: z.coerce.number().int().positive().default(20 * 1024 ** 3),
  /** On-the-fly transcodes for Subsonic `stream` at once, app-wide (each user: at most 1); beyond, the stored file as it is. */
  TRANSCODE_CONCURRENCY: z.coerce.number().int().min(0).default(2),
  /** POST /api/music/tags calls read at once, over all users (each user: at most 2). */
  TAGS_CONCURRENCY: z.coerce.number().int().positive().default(4),
  /** Seconds between `{status:"PING"}` messages on the listen sockets. */
  WS_PING_SECONDS: z.coerce.number().positive().default(30),
  /** Start the scheduler (hourly/daily refreshes). */
  SCHEDULER: bool.default(true),
  /** Where every kept file lives: `local` (under DATA_DIR) or `s3` (the S3_* store below; src/storage). */
  STORAGE: z.enum(['local', 's3']).default('local'),
  /** The S3-compatible store when STORAGE=s3 (path-style requests unless S3_VIRTUAL_HOSTED_STYLE). */
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  S3_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name (3-63 lower-case letters, digits, dots, hyphens)').optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  /** Put before every key as given (end it with `/` for a folder). */
  S3_PREFIX: z.string().regex(/^[^\u0000-\u001f]*$/, 'must not hold control characters').default(''),
  S3_VIRTUAL_HOSTED_STYLE: bool.default(false),
  /** `on`: an authorised GET of an /api file route answers 302 to a presigned URL (at most 300 s). */
  S3_PRESIGN: z.enum(['on', 'off']).default('off'),
  /** One OpenID Connect provider for sign-in (off when OIDC_ISSUER is unset); see src/auth/oidc.ts. */
  OIDC_ISSUER: z.url().optional(),
  OIDC_CLIENT_ID: z.string().optional(),
  OIDC_CLIENT_SECRET: z.string().optional(),
  /** Shown on the login page: "Sign in with {OIDC_NAME}". */
  OIDC_NAME: z.string().default('Single sign-on'),
  /** `open`, or `oidc-only`: new accounts only through the provider (needs OIDC_ISSUER). */
  SIGNUP: z.enum(['open', 'oidc-only']).default('open'),
}).superRefine((env, ctx) => {
  if (env.OIDC_ISSUER && !env.OIDC_CLIENT_ID) ctx.addIssue({ code: 'custom', path: ['OIDC_CLIENT_ID'], message: 'is required with OIDC_ISSUER' })
  if (env.STORAGE === 's3')
    for (const name of ['S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const)
      if (!env[name]) ctx.addIssue({ code: 'custom', path: [name], message: 'is required with STORAGE=s3' })
  if (env.SIGNUP === 'oidc-only' && !env.OIDC_ISSUER) ctx.addIssue({ code: 'custom', path: ['SIGNUP'], message: 'oidc-only needs OIDC_ISSUER' })
})

export type Env = z.infer<typeof schema>

export class EnvError extends Error {}

export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  // Empty strings mean "unset" so `FOO= bun ...` falls back to the default.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''))
  const result = schema.safeParse(cleaned)
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`)
    throw new EnvError(`Invalid configuration:\n${lines.join('\n')}`)
  }
  return result.data
}

/**
 * What stops a server start beyond the schema: in production (NODE_ENV=production,
 * the Docker image; the compiled binary unless NODE_ENV says otherwise) links in
 * mails must not come from a request's Host header, so PUBLIC_URL is required.
 * The CLI commands do not need it.
 */
export function serverStartProblem(opts: { binary: boolean }, source: Record<string, string | undefined> = process.env): string | null {
  const production = source.NODE_ENV ? source.NODE_ENV === 'production' : opts.binary
  if (production && !source.PUBLIC_URL)
    return 'PUBLIC_URL is required in production: set it to the address people open Tunefeed at (for example https://music.example.org). Links in e-mails are built from it, never from a request\'s Host header.'
  return null
}

/**
 * For entry points (server, CLI): the parsed environment, or null after
 * printing the message that names the bad variable.
 */
export function parseEnvOrReport(source: Record<string, string | undefined> = process.env): Env | null {
  try {
    return parseEnv(source)
  } catch (err) {
    if (!(err instanceof EnvError)) throw err
    console.error(err.message)
    return null
  }
}
