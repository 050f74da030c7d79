import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { privateTree } from '../lib/data-dir.ts'
import { errorFields, log } from '../lib/logger.ts'
import { pgliteSeed } from './seed.ts'
import { acquireLock } from '../lib/lock-file.ts'
import { embeddedMigrations, embeddedPgliteOptions } from '../embedded.ts'

/** No relational schema: every query names its tables (each feature's tables.ts; src/tables.ts lists them all). */
export type Db = PgDatabase<PgQueryResultHKT>

/** The database or an open transaction on it: what every query function takes first. */
export type Tx = Db | Parameters<Parameters<Db['transaction']>[0]>[0]

export interface Database {
  db: Db
  kind: 'pglite' | 'postgres'
  /** A cheap round-trip used by /api/health. */
  ping(): Promise<void>
  close(): Promise<void>
}

export const MIGRATIONS_FOLDER = join(import.meta.dir, '../../drizzle')

/**
 * Runs drizzle/ on the database: from the folder, or in the compiled binary
 * from the embedded journal (what drizzle's `migrate` does after reading files).
 */
async function runMigrations(db: Db, migrator: () => Promise<{ migrate: (db: never, config: { migrationsFolder: string }) => Promise<void> }>) {
  const list = embeddedMigrations()
  if (!list) return (await migrator()).migrate(db as never, { migrationsFolder: MIGRATIONS_FOLDER })
  const { dialect, session } = db as unknown as { dialect: { migrate(m: unknown, s: unknown, c: object): Promise<void> }; session: unknown }
  await dialect.migrate(list, session, { migrationsFolder: MIGRATIONS_FOLDER })
}

/**
 * How the app's PostgreSQL connections behave when the database goes away
 * (docs/decisions/167-database-outage.md): a connection attempt gives up after
 * `connectTimeoutSeconds` (postgres.js waits 30 s by default), idle connections
 * are closed after `idleTimeoutSeconds` and renewed after `maxLifetimeSeconds`
 * (none is kept long enough to go stale across a restart), TCP keep-alive
 * probes a silent peer after `keepAliveSeconds`, and the server cancels any
 * statement running longer than `statementTimeoutMs`. After a failed
 * connection the driver waits before reconnecting; its default wait grows
 * with every failure of the outage to 20 s (3^n/100 s), and the queries queued
 * on that connection wait with it even once the database is back: capped at
 * `reconnectMaxSeconds`. A request then never waits on a dead connection: it
 * gets the driver's error, answered 503.
 */
export interface PostgresTimeouts {
  connectTimeoutSeconds: number
  idleTimeoutSeconds: number
  maxLifetimeSeconds: number
  keepAliveSeconds: number
  /** 0: no limit (backups and migrations copy whole tables). */
  statementTimeoutMs: number
  /** Longest wait before reconnecting after a failed connection (doubling from 50 ms). */
  reconnectMaxSeconds: number
}

export const APP_POSTGRES_TIMEOUTS: PostgresTimeouts = {
  connectTimeoutSeconds: 3,
  idleTimeoutSeconds: 20,
  maxLifetimeSeconds: 30 * 60,
  keepAliveSeconds: 10,
  statementTimeoutMs: 30_000,
  reconnectMaxSeconds: 0.5,
}

/** PostgreSQL through the `postgres` driver; migrations run before it is returned. */
export async function openPostgres(
  url: string,
  opts: { migrate?: boolean; max?: number; timeouts?: PostgresTimeouts } = {},
): Promise<Database> {
  const { default: postgres } = await import('postgres')
  const { drizzle } = await import('drizzle-orm/postgres-js')
  if (opts.migrate !== false && opts.timeouts?.statementTimeoutMs) {
    // a migration may take longer than a request's statement limit: its own connection, without one
    const migrator = postgres(url, { onnotice: () => {}, max: 1, connection: { jit: 'off' } })
    try {
      await runMigrations(drizzle(migrator) as unknown as Db, () => import('drizzle-orm/postgres-js/migrator'))
    } finally {
      await migrator.end({ timeout: 5 })
    }
  }
  const t = opts.timeouts
  // JIT compiles plans above a cost threshold: 20 ms spent on a query that runs in a few (docs/decisions/026)
  const sql = postgres(url, {
    onnotice: () => {},
    max: opts.max ?? 10,
    connection: { jit: 'off', ...(t?.statementTimeoutMs ? { statement_timeout: t.statementTimeoutMs } : {}) },
    ...(t
      ? {
          connect_timeout: t.connectTimeoutSeconds,
          idle_timeout: t.idleTimeoutSeconds,
          max_lifetime: t.maxLifetimeSeconds,
          keep_alive: t.keepAliveSeconds,
          backoff: (retries: number) => Math.min(0.05 * 2 ** retries, t.reconnectMaxSeconds),
        }
      : {}),
  })
  const db = drizzle(sql) as unknown as Db
  if (opts.migrate !== false && !opts.timeouts?.statementTimeoutMs) await runMigrations(db, () => import('drizzle-orm/postgres-js/migrator'))
  return {
    db,
    kind: 'postgres',
    ping: async () => void (await sql`select 1`),
    close: () => sql.end({ timeout: 5 }),
  }
}

/**
 * Settings over PGlite's defaults: 16 MB of shared buffers instead of 128 MB keeps the
 * process within a small server's memory (a personal library's hot pages fit; the rest
 * is read through the OS cache). See docs/decisions/085-first-start-footprint.md.
 */
const PGLITE_SETTINGS = ['-c', 'shared_buffers=16MB']

/**
 * Embedded PGlite in `dir`. PGlite does not lock its folder and two processes
 * on one folder silently lose writes, so a lock file guards it.
 */
export async function openPglite(
  dir: string | undefined,
  opts: { migrate?: boolean; loadDataDir?: Blob } = {},
): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite')
  const { drizzle } = await import('drizzle-orm/pglite')
  let release = () => {}
  if (dir) {
    mkdirSync(dir, { recursive: true })
    release = acquireLock(join(dir, '..', `${dir.split('/').pop()}.lock`))
  }
  let client: InstanceType<typeof PGlite>
  const start = async (loadDataDir: Blob | undefined) => {
    // the compiled binary passes PGlite its embedded wasm and data files
    const initdb = !loadDataDir && !(dir && existsSync(join(dir, 'PG_VERSION')))
    const options = { ...(await embeddedPgliteOptions({ initdb })), startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS], ...(loadDataDir ? { loadDataDir } : {}) }
    // PGlite reads its options from the first argument when there is no folder (in memory)
    const c = dir ? new PGlite(dir, options) : new PGlite(options)
    await c.waitReady
    return c
  }
  // an empty folder starts from the seed made at build time instead of running initdb (src/db/seed.ts):
  // unpacked by tar when there is one (a plain reopen then), else loaded by PGlite
  let seed = opts.loadDataDir ?? (dir && !existsSync(join(dir, 'PG_VERSION')) ? pgliteSeed() : undefined)
  // the binary compiles PGlite's WASM while tar unpacks (remembered: start() below gets the same)
  if (seed) void embeddedPgliteOptions({ initdb: false }).catch(() => {})
  if (seed && !opts.loadDataDir && dir && (await unpackSeed(seed, dir))) seed = undefined
  try {
    try {
      client = await start(seed)
    } catch (err) {
      if (!seed || opts.loadDataDir || !dir) throw err
      log.warn('the database seed could not be loaded: creating the database from scratch', errorFields(err))
      for (const name of readdirSync(dir)) rmSync(join(dir, name), { recursive: true, force: true })
      client = await start(undefined)
    }
  } catch (err) {
    release()
    throw err
  }
  const db = drizzle(client) as unknown as Db
  if (opts.migrate !== false) await runMigrations(db, () => import('drizzle-orm/pglite/migrator'))
  if (dir) privateTree(dir)
  return {
    db,
    kind: 'pglite',
    ping: async () => void (await client.query('select 1')),
    close: async () => {
      await client.close()
      if (dir) privateTree(dir)
      release()
    },
    // exposed for the test snapshot helper
    ...({ client } as object),
  }
}

/** Unpacks the seed into `dir` with the system's tar (native and quick); false when that fails. */
async function unpackSeed(seed: Blob, dir: string): Promise<boolean> {
  const tar = Bun.which('tar')
  if (!tar) return false
  const proc = Bun.spawn([tar, '-xzf', '-', '-C', dir, '--no-same-owner', '--no-same-permissions'], { stdin: seed, stdout: 'ignore', stderr: 'ignore' })
  if ((await proc.exited) === 0 && existsSync(join(dir, 'PG_VERSION'))) return true
  for (const name of readdirSync(dir)) rmSync(join(dir, name), { recursive: true, force: true })
  return false
}

export function openDatabase(opts: { databaseUrl?: string; dataDir: string }): Promise<Database> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl, { timeouts: APP_POSTGRES_TIMEOUTS }) : openPglite(join(opts.dataDir, 'db'))
}
