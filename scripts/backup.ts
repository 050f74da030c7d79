#!/usr/bin/env bun
/**
 * Backup and restore of a whole installation in one .tar.gz:
 *
 *   bun scripts/backup.ts create [--out FILE|FOLDER] [--pg-dump PATH]
 *   bun scripts/backup.ts restore FILE [--force] [--pg-restore PATH]
 *   bun scripts/backup.ts inspect FILE
 *
 * (the compiled binary: `tunefeed backup create ...`, `tunefeed backup restore ...`)
 *
 * The archive holds
 *   manifest.json            what it is, and each table's row count and content digest
 *   database/pglite.tar.gz   the embedded database (PGlite `dumpDataDir`), or
 *   database/postgres.dump   `pg_dump --format=custom` of DATABASE_URL
 *   files/...                everything else in DATA_DIR: media (music/), the generated
 *                            `secret` (it decrypts stored WebDAV passwords), mail
 *                            (not: db/, db.lock, queue/, tmp/)
 *
 * With PGlite the app must be stopped (it holds DATA_DIR's lock; a backup
 * takes seconds). With PostgreSQL the app may run: pg_dump takes a consistent
 * snapshot, then the files are archived (a job finishing meanwhile may leave
 * an extra file, never a row without its file... except for that job).
 *
 * Restore refuses to overwrite anything unless --force, which moves what it
 * replaces to DATA_DIR/replaced-<time>/ (PostgreSQL tables are replaced).
 * A PGlite backup restores into PGlite, or into PostgreSQL when DATABASE_URL
 * is set (rows copied table by table, as migrate-to-postgres does). After the
 * database is back, its tables are checked against the manifest's digests.
 * Migrations newer than the backup run on the next start.
 *
 * Exit codes: 0 done, 1 failed or refused, 2 bad usage.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { openPglite, openPostgres, type Database } from '../src/db/client.ts'
import { compareSummaries, copyTables, nonEmptyTables, summarize, type TableSummary } from '../src/db/transfer.ts'
import { embedded } from '../src/embedded.ts'
import { parseEnvOrReport, type Env } from '../src/env.ts'
import { acquireLock } from '../src/lib/lock-file.ts'
import { setLogLevel } from '../src/lib/logger.ts'

/** DATA_DIR entries that are not archived: the database (dumped separately), its lock, the job queue, scratch space. */
const NOT_ARCHIVED = new Set(['db', 'db.lock', 'queue', 'tmp'])
const FORMAT = 'tunefeed-backup'

export interface Manifest {
  format: typeof FORMAT
  formatVersion: 1
  createdAt: string
  appVersion: string
  database: 'pglite' | 'postgres'
  /** Row count and digest per table at backup time. */
  tables: Record<string, TableSummary>
  /** Top-level DATA_DIR entries under files/. */
  files: string[]
  /** APP_SECRET came from the environment: it is not in the archive and must be kept with it. */
  secretFromEnv: boolean
}

class UsageError extends Error {}
class CommandError extends Error {}

type Out = (line: string) => void

async function exec(cmd: string[], what: string) {
  const proc = Bun.spawn(cmd, { stdout: 'pipe', stderr: 'pipe' })
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  if (code !== 0) throw new CommandError(`${what} failed (exit ${code}): ${(stderr || stdout).trim()}`)
}

function tool(name: string, given?: string): string {
  const path = given ?? Bun.which(name)
  if (!path) throw new CommandError(`${name} not found: install postgresql-client (same major version as the server, or newer) or pass --${name} PATH`)
  return path
}

const stamp = () => new Date().toISOString().replace(/[:.]/g, '-')

function dataEntries(dataDir: string): string[] {
  if (!existsSync(dataDir)) return []
  return readdirSync(dataDir)
    .filter((name) => !NOT_ARCHIVED.has(name) && !name.startsWith('replaced-') && !name.startsWith('.restore-'))
    .sort()
}

function pgliteClient(database: Database) {
  return (database as unknown as { client: { dumpDataDir(c: 'gzip'): Promise<Blob> } }).client
}

export async function createBackup(env: Env, opts: { out?: string; pgDump?: string }, out: Out): Promise<string> {
  // --out may name the file, or a folder to put a time-stamped file in
  const name = `tunefeed-backup-${stamp()}.tar.gz`
  const file = !opts.out ? resolve(name) : existsSync(opts.out) && statSync(opts.out).isDirectory() ? resolve(opts.out, name) : resolve(opts.out)
  const staging = mkdtempSync(join(tmpdir(), 'tunefeed-backup-'))
  try {
    mkdirSync(join(staging, 'database'))
    let tables: Record<string, TableSummary>
    if (env.DATABASE_URL) {
      const database = await openPostgres(env.DATABASE_URL, { migrate: false, max: 1 })
      try {
        tables = await summarize(database.db)
      } finally {
        await database.close()
      }
      await exec(
        [tool('pg_dump', opts.pgDump), '--format=custom', '--no-owner', '--no-privileges', `--file=${join(staging, 'database', 'postgres.dump')}`, `--dbname=${env.DATABASE_URL}`],
        'pg_dump',
      )
    } else {
      const dir = join(env.DATA_DIR, 'db')
      if (!existsSync(dir)) throw new CommandError(`no embedded database in ${dir} (is DATA_DIR right?)`)
      // holds DATA_DIR's lock: refuses while the app runs
      const database = await openPglite(dir, { migrate: false })
      try {
        tables = await summarize(database.db)
        const dump = await pgliteClient(database).dumpDataDir('gzip')
        await Bun.write(join(staging, 'database', 'pglite.tar.gz'), dump)
      } finally {
        await database.close()
      }
    }
    const files = dataEntries(env.DATA_DIR)
    const manifest: Manifest = {
      format: FORMAT,
      formatVersion: 1,
      createdAt: new Date().toISOString(),
      appVersion: embedded()?.version ?? 'source',
      database: env.DATABASE_URL ? 'postgres' : 'pglite',
      tables,
      files,
      secretFromEnv: !!env.APP_SECRET,
    }
    writeFileSync(join(staging, 'manifest.json'), JSON.stringify(manifest, null, 2))
    mkdirSync(dirname(file), { recursive: true })
    // GNU tar: the DATA_DIR entries go under files/ (only they start with ./)
    // the archive holds the database and the generated secret: private from its first byte
    writeFileSync(`${file}.partial`, '', { mode: 0o600 })
    chmodSync(`${file}.partial`, 0o600)
    await exec(
      [
        'tar', '-czf', `${file}.partial`, '-C', staging, 'manifest.json', 'database',
        ...(files.length ? ['-C', resolve(env.DATA_DIR), '--transform=flags=rh;s,^\\./,files/,', ...files.map((f) => `./${f}`)] : []),
      ],
      'tar',
    )
    renameSync(`${file}.partial`, file)
    const rows = Object.values(tables).reduce((n, t) => n + t.rows, 0)
    out(`Backed up ${manifest.database} (${Object.keys(tables).length} tables, ${rows} rows) and ${files.length ? files.join(', ') : 'no files'} to ${file}`)
    if (manifest.secretFromEnv) out('APP_SECRET is set in the environment, so it is not in the archive: keep it with the backup.')
    return file
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

async function readManifest(dir: string): Promise<Manifest> {
  const path = join(dir, 'manifest.json')
  if (!existsSync(path)) throw new CommandError('not a Tunefeed backup: manifest.json is missing')
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as Manifest
  if (manifest.format !== FORMAT || manifest.formatVersion !== 1) throw new CommandError(`unsupported backup format ${manifest.format} v${manifest.formatVersion}`)
  return manifest
}

export async function inspectBackup(file: string, out: Out) {
  const dir = mkdtempSync(join(tmpdir(), 'tunefeed-inspect-'))
  try {
    await exec(['tar', '-xzf', resolve(file), '-C', dir, 'manifest.json'], 'tar')
    const m = await readManifest(dir)
    out(`${m.database} backup of ${m.createdAt} (app ${m.appVersion}); files: ${m.files.join(', ') || 'none'}`)
    for (const [name, t] of Object.entries(m.tables)) out(`  ${name.padEnd(32)} ${String(t.rows).padStart(8)} rows`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export async function restoreBackup(env: Env, file: string, opts: { force?: boolean; pgRestore?: string }, out: Out) {
  if (!existsSync(file)) throw new CommandError(`${file}: no such file`)
  const dataDir = resolve(env.DATA_DIR)
  mkdirSync(dataDir, { recursive: true })
  const when = stamp()
  // extracted inside DATA_DIR so the files can be renamed into place
  const staging = join(dataDir, `.restore-${when}`)
  mkdirSync(staging)
  const aside = join(dataDir, `replaced-${when}`)
  const moveAside = (name: string) => {
    mkdirSync(aside, { recursive: true })
    renameSync(join(dataDir, name), join(aside, name))
  }
  let releaseLock: (() => void) | null = null
  try {
    await exec(['tar', '-xzf', resolve(file), '-C', staging], 'tar')
    const manifest = await readManifest(staging)
    const target = env.DATABASE_URL ? 'postgres' : 'pglite'
    if (manifest.database === 'postgres' && target === 'pglite') {
      throw new CommandError('this is a PostgreSQL backup: set DATABASE_URL to the (empty) database to restore it into')
    }

    // what would be overwritten
    const conflicts: string[] = []
    if (target === 'pglite') {
      releaseLock = acquireLock(join(dataDir, 'db.lock')) // the app must be stopped
      const dbDir = join(dataDir, 'db')
      if (existsSync(dbDir) && readdirSync(dbDir).length) conflicts.push(`${dbDir} (embedded database)`)
    } else {
      const database = await openPostgres(env.DATABASE_URL!, { migrate: false, max: 1 })
      try {
        const tables = await nonEmptyTables(database.db)
        if (tables.length) conflicts.push(`PostgreSQL tables with rows: ${tables.join(', ')}`)
      } finally {
        await database.close()
      }
    }
    const files = existsSync(join(staging, 'files')) ? readdirSync(join(staging, 'files')) : []
    for (const name of files) if (existsSync(join(dataDir, name))) conflicts.push(join(dataDir, name))
    if (conflicts.length && !opts.force) {
      throw new CommandError(`refusing to overwrite existing data (pass --force to replace it; files are moved to ${aside}):\n  ${conflicts.join('\n  ')}`)
    }

    // the database
    const dumpDir = join(staging, 'database')
    let check: Record<string, TableSummary>
    if (manifest.database === 'pglite') {
      const blob = Bun.file(join(dumpDir, 'pglite.tar.gz'))
      if (target === 'pglite') {
        if (existsSync(join(dataDir, 'db'))) moveAside('db')
        releaseLock?.()
        releaseLock = null
        const database = await openPglite(join(dataDir, 'db'), { migrate: false, loadDataDir: blob })
        try {
          check = await summarize(database.db)
        } finally {
          await database.close()
        }
      } else {
        // into PostgreSQL: load the dump in memory, check it, bring it to the current schema, copy its rows
        const archived = await openPglite(undefined, { migrate: false, loadDataDir: blob })
        try {
          const problems = compareSummaries(manifest.tables, await summarize(archived.db))
          if (problems.length) throw new CommandError(`the archive's database does not match its manifest:\n  ${problems.join('\n  ')}`)
        } finally {
          await archived.close()
        }
        const source = await openPglite(undefined, { loadDataDir: blob })
        const destination = await openPostgres(env.DATABASE_URL!, { max: 2 })
        try {
          await copyTables(source.db, destination.db, { replace: true })
          const problems = compareSummaries(await summarize(source.db), await summarize(destination.db))
          if (problems.length) throw new CommandError(`the copy into PostgreSQL differs:\n  ${problems.join('\n  ')}`)
        } finally {
          await destination.close()
          await source.close()
        }
        // checked against the manifest above, before migrations could change the rows
        check = manifest.tables
      }
    } else {
      await exec(
        [
          tool('pg_restore', opts.pgRestore), '--clean', '--if-exists', '--no-owner', '--no-privileges', '--single-transaction',
          `--dbname=${env.DATABASE_URL}`, join(dumpDir, 'postgres.dump'),
        ],
        'pg_restore',
      )
      const database = await openPostgres(env.DATABASE_URL!, { migrate: false, max: 1 })
      try {
        check = await summarize(database.db)
      } finally {
        await database.close()
      }
    }
    const problems = compareSummaries(manifest.tables, check)
    if (problems.length) throw new CommandError(`restored database differs from the backup:\n  ${problems.join('\n  ')}`)

    // the files
    for (const name of files) {
      if (existsSync(join(dataDir, name))) moveAside(name)
      renameSync(join(staging, 'files', name), join(dataDir, name))
    }
    const rows = Object.values(manifest.tables).reduce((n, t) => n + t.rows, 0)
    out(`Restored ${manifest.database} backup of ${manifest.createdAt} into ${target} (${rows} rows, all tables verified) and ${files.join(', ') || 'no files'} into ${dataDir}`)
    if (existsSync(aside)) out(`What was there before is in ${aside}`)
    if (manifest.secretFromEnv) out('The backup was made with APP_SECRET from the environment: start the app with the same APP_SECRET.')
  } finally {
    releaseLock?.()
    rmSync(staging, { recursive: true, force: true })
  }
}

const USAGE = `Usage: bun scripts/backup.ts <command>

  create [--out FILE|DIR] [--pg-dump PATH]      database + DATA_DIR files into one .tar.gz
  restore FILE [--force] [--pg-restore PATH]    put a backup back (--force replaces existing data)
  inspect FILE                                  show what a backup holds

Uses DATABASE_URL, or the PGlite database in DATA_DIR (stop the app first).`

function parseArgs(args: string[], valued: string[], flags: string[]) {
  const options: Record<string, string | true> = {}
  const rest: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (!arg.startsWith('--')) rest.push(arg)
    else if (valued.includes(arg)) {
      const value = args[++i]
      if (!value) throw new UsageError(`${arg} needs a value`)
      options[arg.slice(2)] = value
    } else if (flags.includes(arg)) options[arg.slice(2)] = true
    else throw new UsageError(`unknown option ${arg}`)
  }
  return { options, rest }
}

/** Runs one command line; returns the exit code. */
export async function main(argv: string[], source: Record<string, string | undefined> = process.env, out: Out = console.log): Promise<number> {
  const [command, ...args] = argv
  if (!command || command === 'help' || command === '--help') {
    console.log(USAGE)
    return command ? 0 : 2
  }
  const env = parseEnvOrReport(source)
  if (!env) return 1
  setLogLevel(env.LOG_LEVEL === 'info' ? 'warn' : env.LOG_LEVEL)
  try {
    if (command === 'create') {
      const { options, rest } = parseArgs(args, ['--out', '--pg-dump'], [])
      if (rest.length) throw new UsageError(`unexpected argument ${rest[0]}`)
      await createBackup(env, { out: options.out as string | undefined, pgDump: options['pg-dump'] as string | undefined }, out)
    } else if (command === 'restore') {
      const { options, rest } = parseArgs(args, ['--pg-restore'], ['--force'])
      if (rest.length !== 1) throw new UsageError('restore needs the backup file')
      await restoreBackup(env, resolve(rest[0]!), { force: !!options.force, pgRestore: options['pg-restore'] as string | undefined }, out)
    } else if (command === 'inspect') {
      const { rest } = parseArgs(args, [], [])
      if (rest.length !== 1) throw new UsageError('inspect needs the backup file')
      await inspectBackup(rest[0]!, out)
    } else throw new UsageError(`unknown command ${command}`)
    return 0
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`${err.message}\n\n${USAGE}`)
      return 2
    }
    console.error(`${command}: ${err instanceof Error ? err.message : String(err)}`)
    return 1
  }
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)))
