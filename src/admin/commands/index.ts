/**
 * The admin commands (docs/api.md, Admin; docs/decisions/154-admin-commands-in-src.md):
 * the table of every command, its usage text, and runCommand, which the
 * command line (scripts/admin.ts) and the server's local admin channel
 * (src/admin/channel.ts, started by src/server.ts) both call.
 *
 *   create-user <email> <password> [--admin] | grant-admin <email> | revoke-admin <email>   (here)
 *   status | users | jobs | schedules | mail ...                                            (./admin.ts)
 *   youtube-refresh-channels | youtube-sync-subscriptions | youtube-refresh-categories | youtube-quota (./youtube.ts)
 *   tools [update | rollback | canary] | cookies set <file> | cookies remove                 (./tools.ts)
 *   storage check | storage copy --to s3|local                                              (./storage.ts)
 *
 * New subcommands: add an entry to `commands` (name, usage, summary, run).
 */
import { HTTPException } from 'hono/http-exception'
import type { AppContext } from '../../context.ts'
import type { CommandOutput } from '../channel.ts'
import { openDatabase, type Database } from '../../db/client.ts'
import type { Env } from '../../env.ts'
import { createUser } from '../../auth/queries.ts'
import { password as passwordSchema } from '../../auth/schema.ts'
import { updateUser } from '../users.ts'
import { adminCommands } from './admin.ts'
import { CommandError, parseEmail, positional, takeFlags, UsageError, userIdOf, type Command, type CommandContext } from './command.ts'
import { storageCommands } from './storage.ts'
import { toolCommands } from './tools.ts'
import { youtubeCommands } from './youtube.ts'

export { CommandError, UsageError, type Command, type CommandContext } from './command.ts'

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
  ...storageCommands,
}

export function usage(): string {
  const width = Math.max(...Object.values(commands).map((c) => c.usage.length))
  const lines = Object.values(commands).map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`)
  return `Usage: bun scripts/admin.ts <command> [arguments]\n\nCommands:\n${lines.join('\n')}\n\nUses DATABASE_URL, or the PGlite database in DATA_DIR (default ./data); runs inside the server when one runs on DATA_DIR.`
}

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
        const { createContext } = await import('../../compose.ts')
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

