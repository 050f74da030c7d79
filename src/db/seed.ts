import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { embedded } from '../embedded.ts'

/**
 * A migrated PGlite data folder, made at build time (scripts/build-seed.ts;
 * the compiled binary embeds it), so that a first start loads it instead of
 * running PGlite's initdb, which peaks at about 1 GB of memory here (loading
 * the seed: about 300 MB). Migrations newer than the seed run on top as on
 * any start. Absent (not built) or unusable, the first start runs initdb.
 */
export const SEED_FILE = join(import.meta.dir, '../../dist/pglite-seed.tar.gz')

/** The seed to load into an empty data folder, if there is one. */
export function pgliteSeed(): Blob | undefined {
  const path = embedded()?.pgliteSeed ?? (existsSync(SEED_FILE) ? SEED_FILE : undefined)
  return path ? Bun.file(path) : undefined
}
