#!/usr/bin/env bun
/**
 * Administration from the command line, on the same database as the app:
 * DATABASE_URL when set, else the embedded PGlite in DATA_DIR (default ./data).
 *
 *   bun scripts/admin.ts help                       every command (src/admin/commands/)
 *   bun scripts/admin.ts create-user <email> <password> [--admin]
 *   bun scripts/admin.ts grant-admin <email> | revoke-admin <email>
 *   bun scripts/admin.ts status | users | jobs | schedules | mail ...
 *   bun scripts/admin.ts youtube-refresh-channels | youtube-sync-subscriptions | youtube-refresh-categories | youtube-quota
 *   bun scripts/admin.ts tools [update | rollback | canary] | cookies set <file> | cookies remove
 *
 * This file only reads the command line: the commands live in
 * src/admin/commands/. When a server runs on DATA_DIR, the command runs
 * inside it through the local admin channel (a Unix socket in DATA_DIR only
 * the host account that runs the server can use; src/admin/channel.ts): same
 * output and exit codes, and PGlite's lock is no obstacle. Otherwise the
 * database is opened here. Exit codes: 0 done, 1 refused or failed, 2 bad usage.
 */
import { runOverChannel, type CommandOutput } from '../src/admin/channel.ts'
import { commands, runCommand, usage } from '../src/admin/commands/index.ts'
import { parseEnvOrReport } from '../src/env.ts'
import { setLogLevel } from '../src/lib/logger.ts'

const console_: CommandOutput = { out: (line) => console.log(line), err: (line) => console.error(line) }

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
