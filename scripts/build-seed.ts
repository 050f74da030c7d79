#!/usr/bin/env bun
/**
 * Makes the PGlite seed a first start loads instead of running initdb
 * (src/db/seed.ts): a migrated, empty database dumped to
 * dist/pglite-seed.tar.gz. `npm start` and scripts/build-binary.ts run it;
 * it does nothing when the seed already matches the migrations and the
 * PGlite version (dist/pglite-seed.json). This process peaks at about 1 GB
 * (initdb): build where that is available, e.g. not on a 1 GB server
 * (use the binary or the Docker image built elsewhere there).
 *
 *   bun scripts/build-seed.ts [--force]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { openPglite } from '../src/db/client.ts'
import { SEED_FILE } from '../src/db/seed.ts'

const ROOT = join(import.meta.dir, '..')
const stamp = {
  journal: new Bun.CryptoHasher('sha256').update(readFileSync(join(ROOT, 'drizzle/meta/_journal.json'))).digest('hex'),
  pglite: (JSON.parse(readFileSync(join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }).version,
}
const stampFile = SEED_FILE.replace(/\.tar\.gz$/, '.json')

export async function buildSeed(force = false): Promise<boolean> {
  if (!force && existsSync(SEED_FILE) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === JSON.stringify(stamp)) return false
  const database = await openPglite(undefined)
  const blob = await (database as unknown as { client: { dumpDataDir(c: 'gzip'): Promise<Blob> } }).client.dumpDataDir('gzip')
  await database.close()
  mkdirSync(dirname(SEED_FILE), { recursive: true })
  await Bun.write(SEED_FILE, blob)
  writeFileSync(stampFile, JSON.stringify(stamp))
  return true
}

if (import.meta.main) {
  const made = await buildSeed(process.argv.includes('--force'))
  console.log(made ? `built ${SEED_FILE}` : `${SEED_FILE} is up to date`)
  process.exit(0)
}
