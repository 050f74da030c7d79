#!/usr/bin/env bun
/**
 * Moves an embedded (PGlite) installation to PostgreSQL:
 *
 *   DATABASE_URL=postgres://... bun scripts/migrate-to-postgres.ts [--force]
 *   (compiled binary: DATABASE_URL=... tunefeed migrate-to-postgres)
 *
 * Stop the app first (PGlite's lock). The PGlite database in DATA_DIR/db and
 * the PostgreSQL database are both migrated to the current schema, then every
 * table is copied, parents before children, in one transaction; then each
 * table's row count and content digest are compared on both sides. The
 * target must be empty (--force empties it first). Nothing in DATA_DIR
 * changes: media stay where they are, and the PGlite folder is left as it
 * was (delete it once the app runs well on PostgreSQL).
 *
 * Then start the app with DATABASE_URL set. Jobs waiting in the embedded
 * queue are not moved: unfinished music jobs are enqueued again at start-up.
 *
 * Exit codes: 0 done, 1 failed or refused, 2 bad usage.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { openPglite, openPostgres } from '../src/db/client.ts'
import { compareSummaries, copyTables, nonEmptyTables, summarize } from '../src/db/transfer.ts'
import { parseEnvOrReport } from '../src/env.ts'
import { setLogLevel } from '../src/lib/logger.ts'

const USAGE = `Usage: DATABASE_URL=postgres://user:pass@host/db bun scripts/migrate-to-postgres.ts [--force]

Copies the embedded database in DATA_DIR/db into the (empty) PostgreSQL database
DATABASE_URL and verifies every table. --force empties the target first.`

/** Runs the move; returns the exit code. */
export async function main(argv: string[], source: Record<string, string | undefined> = process.env, out = console.log): Promise<number> {
  const force = argv.includes('--force')
  const unknown = argv.filter((a) => a !== '--force')
  if (unknown.length) {
    console.error(`${unknown[0] === 'help' || unknown[0] === '--help' ? '' : `unexpected argument ${unknown[0]}\n\n`}${USAGE}`)
    return unknown[0] === 'help' || unknown[0] === '--help' ? 0 : 2
  }
  const env = parseEnvOrReport(source)
  if (!env) return 1
  if (!env.DATABASE_URL) {
    console.error(`DATABASE_URL is not set.\n\n${USAGE}`)
    return 2
  }
  setLogLevel(env.LOG_LEVEL === 'info' ? 'warn' : env.LOG_LEVEL)
  const dir = join(env.DATA_DIR, 'db')
  if (!existsSync(dir)) {
    console.error(`No embedded database in ${dir} (is DATA_DIR right?)`)
    return 1
  }
  const started = performance.now()
  let from, to
  try {
    from = await openPglite(dir) // takes DATA_DIR's lock: fails while the app runs
    to = await openPostgres(env.DATABASE_URL, { max: 2 })
    const occupied = await nonEmptyTables(to.db)
    if (occupied.length && !force) {
      console.error(`The PostgreSQL database already has rows in ${occupied.join(', ')}.\nUse an empty database, or --force to empty it first.`)
      return 1
    }
    const copied = await copyTables(from.db, to.db, {
      replace: force,
      onTable: (table, rows) => out(`  ${table.padEnd(32)} ${String(rows).padStart(8)} rows`),
    })
    const problems = compareSummaries(await summarize(from.db), await summarize(to.db))
    if (problems.length) {
      console.error(`Verification failed (the copy was committed; fix and rerun with --force):\n  ${problems.join('\n  ')}`)
      return 1
    }
    const rows = Object.values(copied).reduce((n, c) => n + c, 0)
    out(`Copied ${rows} rows in ${Object.keys(copied).length} tables; every table verified (row count and contents), ${((performance.now() - started) / 1000).toFixed(1)} s.`)
    out(`Next: start Tunefeed with DATABASE_URL set (same DATA_DIR for the media). ${dir} is unchanged; remove it once all is well.`)
    return 0
  } catch (err) {
    console.error(`migrate-to-postgres: ${err instanceof Error ? err.message : String(err)}`)
    return 1
  } finally {
    await to?.close()
    await from?.close()
  }
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)))
