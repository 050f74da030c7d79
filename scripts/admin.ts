#!/usr/bin/env bun
/**
 * Administration from the command line, on the same database as the app:
 * DATABASE_URL when set, else the embedded PGlite in DATA_DIR (default ./data).
 *
 *   bun scripts/admin.ts create-user <email> <password> [--admin]
 *   bun scripts/admin.ts grant-admin <email> | revoke-admin <email>
 *   bun scripts/admin.ts status | users | jobs | schedules | mail ...   (scripts/admin-commands.ts)
 *   bun scripts/admin.ts youtube-refresh-channels | youtube-sync-subscriptions | youtube-refresh-categories | youtube-quota
 *     (see scripts/youtube-commands.ts)
 *   bun scripts/admin.ts tools [update | rollback] | cookies set <file> | cookies remove
 *     (see scripts/tools-commands.ts)
 *
 * When a server runs on DATA_DIR, the command runs inside it through the
 * local admin channel (a Unix socket in DATA_DIR only the host account that
 * runs the server can use; src/admin/channel.ts): same output and exit codes,
 * and PGlite's lock is no obstacle. Otherwise the database is opened here.
 * Exit codes: 0 done, 1 refused or failed, 2 bad usage.
 *
 * New subcommands: add an entry to `commands` (name, usage, summary, run).
 */
import { HTTPException } from 'hono/http-exception'
import type { AppContext } from '../src/context.ts'
import { runOverChannel, type CommandOutput } from '../src/admin/channel.ts'
import { openDatabase, type Database, type Db } from '../src/db/client.ts'
import { parseEnvOrReport, type Env } from '../src/env.ts'
import { createUser } from '../src/auth/queries.ts'
import { email as emailSchema, password as passwordSchema } from '../src/auth/schema.ts'
import { findUserIdByEmail, updateUser } from '../src/admin/users.ts'
import { setLogLevel } from '../src/lib/logger.ts'
import { adminCommands } from './admin-commands.ts'
import { youtubeCommands } from './youtube-commands.ts'
import { toolCommands } from './tools-commands.ts'

/** Thrown for bad arguments: printed with the command's usage, exit 2. */
export class UsageError extends Error {}
/** Thrown when the command was understood but cannot be done: exit 1. */
export class CommandError extends Error {}

export interface CommandContext {
  env: Env
  /** Opens the database on first use (migrations run); closed by the runner. */
  database(): Promise<{ db: Db }>
  /**
   * The app's context: the running server's own (over the admin channel), or
   * one built here on first use (its queue not started: queued work runs when
   * the server next runs; closed by the runner).
   */
  context(): Promise<AppContext>
  /** Set when the command runs inside the server (src/admin/channel.ts). */
  app?: AppContext
  out(line: string): void
}

export interface Command {
  usage: string
  summary: string
  run(args: string[], ctx: CommandContext): Promise<void>
  /** Arguments as the running server must see them (e.g. file paths made absolute) before the admin channel. */
  forward?(args: string[]): string[]
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

export function positional(rest: string[], count: number) {
  if (rest.length !== count) throw new UsageError(`expected ${count} argument${count === 1 ? '' : 's'}, got ${rest.length}`)
  return rest
}

/** The user id of an e-mail given on the command line, or CommandError. */
export async function userIdOf(db: Db, raw: string | undefined): Promise<{ id: string; email: string }> {
  const email = parseEmail(raw)
  const id = await findUserIdByEmail(db, email)
  if (!id) throw new CommandError(`No account for ${email}.`)
  return { id, email }
}

async function changeAdmin(args: string[], ctx: CommandContext, admin: boolean) {
  const [raw] = positional(takeFlags(args, []).rest, 1)
  const { db } = await ctx.database()
  const user = await userIdOf(db, raw)
  await updateUser(db, user.id, { admin })
  ctx.out(`${user.email} is ${admin ? 'now' : 'no longer'} an admin.`)
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
  ...adminCommands,
  ...youtubeCommands,
  ...toolCommands,
}

export function usage(): string {
  const width = Math.max(...Object.values(commands).map((c) => c.usage.length))
  const lines = Object.values(commands).map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`)
  return `Usage: bun scripts/admin.ts <command> [arguments]\n\nCommands:\n${lines.join('\n')}\n\nUses DATABASE_URL, or the PGlite database in DATA_DIR (default ./data); runs inside the server when one runs on DATA_DIR.`
}

const console_: CommandOutput = { out: (line) => console.log(line), err: (line) => console.error(line) }

/**
 * Runs one known command with its arguments, writing to `io`; returns the exit
 * code. `app`: the running server's context (the admin channel), else the
 * database and context are opened here and closed at the end.
 */
export async function runCommand(argv: string[], io: CommandOutput, env: Env, app?: AppContext): Promise<number> {
  const [name = '', ...args] = argv
  const command = commands[name]
  if (!command) {
    io.err(`Unknown command: ${name}\n\n${usage()}`)
    return 2
  }
  let database: Promise<Database> | undefined
  let built: Promise<{ ctx: AppContext; stop(): Promise<void> }> | undefined
  const openDb = () => (database ??= openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR }))
  const ctx: CommandContext = {
    env,
    app,
    database: async () => app ?? (await openDb()),
    context: async () => {
      if (app) return app
      built ??= (async () => {
        const { createContext } = await import('../src/context.ts')
        return createContext(env, { database: await openDb() })
      })()
      return (await built).ctx
    },
    out: io.out,
  }
  try {
    await command.run(args, ctx)
    return 0
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`${name}: ${err.message}\nUsage: bun scripts/admin.ts ${command.usage}`)
      return 2
    }
    // the admin functions the routes share answer 4xx as HTTPException: refused, exit 1
    const message = err instanceof HTTPException || err instanceof Error ? err.message : String(err)
    io.err(`${name}: ${message}`)
    return 1
  } finally {
    if (built) await (await built.catch(() => null))?.stop()
    if (database) await (await database.catch(() => null))?.close()
  }
}

/** Runs one command line; returns the exit code. */
export async function main(argv: string[], source: Record<string, string | undefined> = process.env): Promise<number> {
  const [name] = argv
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(usage())
    return name ? 0 : 2
  }
  if (!commands[name]) {
    console.error(`Unknown command: ${name}\n\n${usage()}`)
    return 2
  }
  const env = parseEnvOrReport(source)
  if (!env) return 1
  setLogLevel(env.LOG_LEVEL === 'info' ? 'warn' : env.LOG_LEVEL)
  const [, ...args] = argv
  const forwarded = [name, ...(commands[name].forward?.(args) ?? args)]
  const remote = await runOverChannel(env.DATA_DIR, forwarded, console_)
  if (remote !== null) return remote
  return runCommand(argv, console_, env)
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)))
