import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { sql } from 'drizzle-orm'
import { buildSeed } from '../../scripts/build-seed.ts'
import { openPglite } from './client.ts'
import { pgliteSeed, SEED_FILE } from './seed.ts'

// A first start loads the migrated seed made at build time instead of running
// initdb (about 1 GB of memory): the opened database is the seed's cluster
// (same system identifier), fully migrated, and usable.
setDefaultTimeout(120_000)

const dir = mkdtempSync(join(tmpdir(), 'tunefeed-seed-'))
beforeAll(() => buildSeed(), 120_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const rows = <T>(r: unknown) => (Array.isArray(r) ? r : (r as { rows: T[] }).rows) as T[]

test('an empty data folder starts from the seed, migrated and writable; it reopens as itself', async () => {
  expect(existsSync(SEED_FILE)).toBe(true)
  const seed = new PGlite({ loadDataDir: pgliteSeed() })
  const [{ id: seedId }] = (await seed.query<{ id: string }>('select system_identifier::text as id from pg_control_system()')).rows as [{ id: string }]
  await seed.close()

  const data = join(dir, 'db')
  const database = await openPglite(data)
  const [opened] = rows<{ id: string }>(await database.db.execute(sql`select system_identifier::text as id from pg_control_system()`))
  expect(opened!.id).toBe(seedId)
  const journal = JSON.parse(readFileSync(join(import.meta.dir, '../../drizzle/meta/_journal.json'), 'utf8')) as { entries: unknown[] }
  const [applied] = rows<{ n: number }>(await database.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`))
  expect(applied!.n).toBe(journal.entries.length)
  await database.db.execute(sql`insert into rate_limits (key, count, reset_at) values ('seed-test', 1, now())`)
  const [settings] = rows<{ shared_buffers: string }>(await database.db.execute(sql`show shared_buffers`))
  expect(settings!.shared_buffers).toBe('16MB')
  await database.close()

  // the next start opens the folder as it is (no seed over existing data)
  const again = await openPglite(data)
  const [kept] = rows<{ n: number }>(await again.db.execute(sql`select count(*)::int as n from rate_limits where key = 'seed-test'`))
  expect(kept!.n).toBe(1)
  await again.close()
})
