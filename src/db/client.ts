import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import * as schema from './schema.ts'
import { acquireLock } from '../lib/lock-file.ts'

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>

export interface Database {
  db: Db
  kind: 'pglite' | 'postgres'
  /** A cheap round-trip used by /api/health. */
  ping(): Promise<void>
  close(): Promise<void>
}

export const MIGRATIONS_FOLDER = join(import.meta.dir, '../../drizzle')

/** PostgreSQL through the `postgres` driver; migrations run before it is returned. */
export async function openPostgres(url: string, opts: { migrate?: boolean; max?: number } = {}): Promise<Database> {
  const { default: postgres } = await import('postgres')
  const { drizzle } = await import('drizzle-orm/postgres-js')
  const sql = postgres(url, { onnotice: () => {}, max: opts.max ?? 10 })
  const db = drizzle(sql, { schema }) as unknown as Db
  if (opts.migrate !== false) {
    const { migrate } = await import('drizzle-orm/postgres-js/migrator')
    await migrate(db as never, { migrationsFolder: MIGRATIONS_FOLDER })
  }
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
    client = new PGlite(dir, opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {})
    await client.waitReady
  } catch (err) {
    release()
    throw err
  }
  const db = drizzle(client, { schema }) as unknown as Db
  if (opts.migrate !== false) {
    const { migrate } = await import('drizzle-orm/pglite/migrator')
    await migrate(db as never, { migrationsFolder: MIGRATIONS_FOLDER })
  }
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
