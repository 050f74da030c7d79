import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { closedPort } from './smtp.ts'

/**
 * A private PostgreSQL instance (initdb + pg_ctl as user postgres, in a temp
 * folder, on its own port): a test may stop and start it without disturbing
 * the shared cluster other tests use. Needs root (to run as postgres) and the
 * Debian server binaries; `startPgCluster` returns the reason otherwise.
 */
export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:<port>/tunefeed` (trust on loopback). */
  url: string
  port: number
  /** Stops the server (async: requests in flight go on meanwhile). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>
  start(): Promise<void>
  destroy(): void
}

const BIN = '/usr/lib/postgresql/15/bin'

async function asPostgresAsync(args: string[]) {
  const run = Bun.spawn(['runuser', '-u', 'postgres', '--', ...args], { stdout: 'pipe', stderr: 'pipe' })
  if ((await run.exited) !== 0) throw new Error(`${args.join(' ')}: ${await new Response(run.stderr).text()}`)
}

function asPostgres(args: string[]) {
  const run = Bun.spawnSync(['runuser', '-u', 'postgres', '--', ...args], { stdout: 'pipe', stderr: 'pipe' })
  if (run.exitCode !== 0) throw new Error(`${args.join(' ')}: ${run.stderr.toString() || run.stdout.toString()}`)
}

export async function startPgCluster(): Promise<PgCluster | string> {
  if (process.getuid?.() !== 0) return 'not root: a private PostgreSQL instance runs as user postgres'
  if (!existsSync(`${BIN}/pg_ctl`)) return `no PostgreSQL server binaries in ${BIN}`
  const dir = mkdtempSync(join(tmpdir(), 'tunefeed-pg-'))
  const id = (flag: string) => Bun.spawnSync(['id', flag, 'postgres'])
  if (id('-u').exitCode !== 0) {
    rmSync(dir, { recursive: true, force: true })
    return 'no postgres user'
  }
  chownSync(dir, Number(id('-u').stdout.toString()), Number(id('-g').stdout.toString()))
  const data = join(dir, 'data')
  const port = await closedPort()
  const startArgs = () => [`${BIN}/pg_ctl`, '-D', data, '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']
  try {
    asPostgres([`${BIN}/initdb`, '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'])
    asPostgres(startArgs())
    asPostgres(['psql', '-h', dir, '-p', String(port), '-U', 'postgres', '-c', 'create database tunefeed'])
  } catch (err) {
    Bun.spawnSync(['runuser', '-u', 'postgres', '--', `${BIN}/pg_ctl`, '-D', data, '-m', 'immediate', 'stop'])
    rmSync(dir, { recursive: true, force: true })
    return `the private PostgreSQL instance did not start: ${(err as Error).message}`
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/tunefeed`,
    port,
    stop: (mode = 'fast') => asPostgresAsync([`${BIN}/pg_ctl`, '-D', data, '-m', mode, '-w', 'stop']),
    start: () => asPostgresAsync(startArgs()),
    destroy() {
      if (process.env.PG_CLUSTER_LOG) Bun.spawnSync(['cp', join(dir, 'log'), process.env.PG_CLUSTER_LOG])
      Bun.spawnSync(['runuser', '-u', 'postgres', '--', `${BIN}/pg_ctl`, '-D', data, '-m', 'immediate', 'stop'])
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
