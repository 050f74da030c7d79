import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import * as schema from './schema.ts'
import { acquireLock } from '../lib/lock-file.ts'
import { embeddedMigrations, embeddedPgliteOptions } from '../embedded.ts'

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>

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

/** PostgreSQL through the `postgres` driver; migrations run before it is returned. */
export async function openPostgres(url: string, opts: { migrate?: boolean; max?: number } = {}): Promise<Database> {
  const { default: postgres } = await import('postgres')
  const { drizzle } = await import('drizzle-orm/postgres-js')
  // JIT compiles plans above a cost threshold: 20 ms spent on a query that runs in a few (docs/decisions/026)
  const sql = postgres(url, { onnotice: () => {}, max: opts.max ?? 10, connection: { jit: 'off' } })
  const db = drizzle(sql, { schema }) as unknown as Db
  if (opts.migrate !== false) await runMigrations(db, () => import('drizzle-orm/postgres-js/migrator'))
  return {
    db,
    kind: 'postgres',
    ping: async () => void (await sql`select 1`),
    close: () => sql.end({ timeout: 5 }),
  }
}

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
  try {
    // the compiled binary passes PGlite its embedded wasm and data files
    const embeddedFiles = await embeddedPgliteOptions()
    const options = { ...embeddedFiles, ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}) }
    // PGlite reads its options from the first argument when there is no folder (in memory)
    client = dir ? new PGlite(dir, options) : new PGlite(options)
    await client.waitReady
  } catch (err) {
    release()
    throw err
  }
  const db = drizzle(client, { schema }) as unknown as Db
  if (opts.migrate !== false) await runMigrations(db, () => import('drizzle-orm/pglite/migrator'))
  return {
    db,
    kind: 'pglite',
    ping: async () => void (await client.query('select 1')),
    close: async () => {
      await client.close()
      release()
    },
    // exposed for the test snapshot helper
    ...({ client } as object),
  }
}

export function openDatabase(opts: { databaseUrl?: string; dataDir: string }): Promise<Database> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl) : openPglite(join(opts.dataDir, 'db'))
}
