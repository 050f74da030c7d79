/**
 * What every admin command is made of (src/admin/commands/): the errors that
 * set the exit code, the context a command gets, and argument helpers.
 * The command line (scripts/admin.ts, the binary's `admin`) and the local
 * admin channel inside the server (src/admin/channel.ts) both run them
 * through runCommand (./index.ts).
 */
import type { AppContext } from '../../context.ts'
import type { Db } from '../../db/client.ts'
import type { Env } from '../../env.ts'
import { email as emailSchema } from '../../auth/schema.ts'
import { findUserIdByEmail } from '../users.ts'

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

