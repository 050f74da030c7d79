import { PGlite } from '@electric-sql/pglite'
import { drizzle } from 'drizzle-orm/pglite'
import { migrate } from 'drizzle-orm/pglite/migrator'
import { APP_POSTGRES_TIMEOUTS, MIGRATIONS_FOLDER, openPostgres, type Database, type Db } from '../../src/db/client.ts'
import * as schema from '../../src/tables.ts'

/**
 * Fresh, migrated databases for tests. PGlite: one migrated instance is
 * dumped once per test process and every test database starts from that
 * blob (well under a second instead of a full initdb). PostgreSQL (when
 * TEST_DATABASE_URL is set, as the CI runner does): each call creates a new
 * database from a migrated template.
 */
let snapshot: Promise<Blob> | undefined
let template: Promise<string> | undefined

async function pgliteSnapshot(): Promise<Blob> {
  const client = new PGlite()
  await migrate(drizzle(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER })
  const blob = await client.dumpDataDir('none')
  await client.close()
  return blob
}

async function pgTemplate(adminUrl: string): Promise<string> {
  const { default: postgres } = await import('postgres')
  const admin = postgres(adminUrl, { onnotice: () => {}, max: 1 })
  const name = `tf_template_${process.pid}`
  await admin.unsafe(`drop database if exists ${name}`)
  await admin.unsafe(`create database ${name}`)
  await admin.end()
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  const db = await openPostgres(url.toString(), { max: 1 })
  await db.close()
  return name
}

/**
 * Drops a test database, ending its connections. An autovacuum worker busy on it cannot be ended
 * by a role without pg_signal_backend (42501: scripts/test.ts grants it to its role, another server
 * may not): then it is tried again shortly, as the worker soon moves on.
 */
export async function dropTestDatabase(adminUrl: string, name: string) {
  const { default: postgres } = await import('postgres')
  const admin = postgres(adminUrl, { onnotice: () => {}, max: 1 })
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.unsafe(`drop database if exists ${name} with (force)`)
        return
      } catch (err) {
        if ((err as { code?: string }).code !== '42501' || attempt >= 20) throw err
        await Bun.sleep(250)
      }
    }
  } finally {
    await admin.end()
  }
}

export async function createTestDatabase(): Promise<Database> {
  const adminUrl = process.env.TEST_DATABASE_URL
  if (adminUrl) {
    template ??= pgTemplate(adminUrl)
    const tpl = await template
    const { default: postgres } = await import('postgres')
    const admin = postgres(adminUrl, { onnotice: () => {}, max: 1 })
    const name = `tf_test_${process.pid}_${crypto.randomUUID().slice(0, 8)}`
    await admin.unsafe(`create database ${name} template ${tpl}`)
    await admin.end()
    const url = new URL(adminUrl)
    url.pathname = `/${name}`
    // the app's timeouts (src/db/client.ts): the PostgreSQL suite runs as the server does
    const database = await openPostgres(url.toString(), { migrate: false, max: 4, timeouts: APP_POSTGRES_TIMEOUTS })
    return {
      ...database,
      async close() {
        await database.close()
        await dropTestDatabase(adminUrl, name)
      },
    }
  }
  snapshot ??= pgliteSnapshot()
  const client = new PGlite({ loadDataDir: await snapshot })
  await client.waitReady
  const db = drizzle(client, { schema }) as unknown as Db
  return {
    db,
    kind: 'pglite',
    ping: async () => void (await client.query('select 1')),
    close: () => client.close(),
  }
}
