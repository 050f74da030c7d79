#!/usr/bin/env bun
/**
 * Administration from the command line, on the same database as the app:
 * DATABASE_URL when set, else the embedded PGlite in DATA_DIR (default ./data).
 *
 *   bun scripts/admin.ts create-user <email> <password> [--admin]
 *   bun scripts/admin.ts grant-admin <email>
 *   bun scripts/admin.ts revoke-admin <email>
 *   bun scripts/admin.ts youtube-refresh-channels | youtube-sync-subscriptions | youtube-refresh-categories | youtube-quota
 *     (see scripts/youtube-commands.ts)
 *
 * With PGlite the app holds DATA_DIR's lock while it runs: stop it first (or
 * use PostgreSQL). Exit codes: 0 done, 1 refused or failed, 2 bad usage.
 *
 * New subcommands: add an entry to `commands` (name, usage, summary, run).
 */
import { openDatabase, type Database } from '../src/db/client.ts'
import { parseEnvOrReport, type Env } from '../src/env.ts'
import { createUser, setAdmin } from '../src/auth/queries.ts'
import { email as emailSchema, password as passwordSchema } from '../src/auth/schema.ts'
import { setLogLevel } from '../src/lib/logger.ts'
import { youtubeCommands } from './youtube-commands.ts'

/** Thrown for bad arguments: printed with the command's usage, exit 2. */
export class UsageError extends Error {}
/** Thrown when the command was understood but cannot be done: exit 1. */
export class CommandError extends Error {}

export interface CommandContext {
  env: Env
  /** Opens the database on first use (migrations run); closed by the runner. */
  database(): Promise<Database>
  out(line: string): void
}

export interface Command {
  usage: string
  summary: string
  run(args: string[], ctx: CommandContext): Promise<void>
}

/** Splits the known `--flag` and `--name=value` options from the positional arguments. */
export function takeFlags(args: string[], known: string[], knownValues: string[] = []) {
  const flags = new Set<string>()
  const values: Record<string, string> = {}
  const rest: string[] = []
  for (const arg of args) {
    const m = /^--([\w-]+)=(.*)$/.exec(arg)
    if (m && knownValues.includes(m[1]!)) values[m[1]!] = m[2]!
    else if (m && knownValues.length) throw new UsageError(`unknown option --${m[1]}`)
    else if (arg.startsWith('--')) {
      if (!known.includes(arg)) throw new UsageError(`unknown option ${arg}`)
      flags.add(arg)
    } else rest.push(arg)
  }
  return { flags, values, rest }
}

export function parseEmail(raw: string | undefined): string {
  const result = emailSchema.safeParse(raw)
  if (!result.success) throw new UsageError(`invalid email: ${raw ?? '(missing)'}`)
  return result.data
}

function positional(rest: string[], count: number) {
  if (rest.length !== count) throw new UsageError(`expected ${count} argument${count === 1 ? '' : 's'}, got ${rest.length}`)
  return rest
}

async function changeAdmin(args: string[], ctx: CommandContext, admin: boolean) {
  const [raw] = positional(takeFlags(args, []).rest, 1)
  const email = parseEmail(raw)
  const { db } = await ctx.database()
  if (!(await setAdmin(db, email, admin))) throw new CommandError(`No account for ${email}.`)
  ctx.out(`${email} is ${admin ? 'now' : 'no longer'} an admin.`)
}

export const commands: Record<string, Command> = {
  'create-user': {
    usage: 'create-user <email> <password> [--admin]',
    summary: 'create a verified account (optionally an admin)',
    async run(args, ctx) {
      const { flags, rest } = takeFlags(args, ['--admin'])
      const [rawEmail, password] = positional(rest, 2)
      const email = parseEmail(rawEmail)
      const checked = passwordSchema.safeParse(password)
      if (!checked.success) throw new UsageError(checked.error.issues[0]!.message)
      const { db } = await ctx.database()
      const admin = flags.has('--admin')
      const user = await createUser(db, email, password!, { verified: true, admin })
      if (!user) throw new CommandError('Account exists.')
      ctx.out(`Created ${admin ? 'admin' : 'user'} ${email}.`)
    },
  },
  'grant-admin': {
    usage: 'grant-admin <email>',
    summary: 'make an existing account an admin',
    run: (args, ctx) => changeAdmin(args, ctx, true),
  },
  'revoke-admin': {
    usage: 'revoke-admin <email>',
    summary: 'take the admin flag from an account',
    run: (args, ctx) => changeAdmin(args, ctx, false),
  },
  ...youtubeCommands,
}

export function usage(): string {
  const width = Math.max(...Object.values(commands).map((c) => c.usage.length))
  const lines = Object.values(commands).map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`)
  return `Usage: bun scripts/admin.ts <command> [arguments]\n\nCommands:\n${lines.join('\n')}\n\nUses DATABASE_URL, or the PGlite database in DATA_DIR (default ./data; stop the app first).`
}

/** Runs one command line; returns the exit code. */
export async function main(argv: string[], source: Record<string, string | undefined> = process.env): Promise<number> {
  const [name, ...args] = argv
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(usage())
    return name ? 0 : 2
  }
  const command = commands[name]
  if (!command) {
    console.error(`Unknown command: ${name}\n\n${usage()}`)
    return 2
  }
  const env = parseEnvOrReport(source)
  if (!env) return 1
  setLogLevel(env.LOG_LEVEL === 'info' ? 'warn' : env.LOG_LEVEL)
  let database: Promise<Database> | undefined
  const ctx: CommandContext = {
    env,
    database: () => (database ??= openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR })),
    out: (line) => console.log(line),
  }
  try {
    await command.run(args, ctx)
    return 0
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`${name}: ${err.message}\nUsage: bun scripts/admin.ts ${command.usage}`)
      return 2
    }
    console.error(`${name}: ${err instanceof Error ? err.message : String(err)}`)
    return 1
  } finally {
    if (database) await (await database.catch(() => null))?.close()
  }
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)))
