import { join } from 'node:path'
import { dropTestDatabase } from '../support/db.ts'
import { REPO_ROOT } from '../support/server-process.ts'
import { freePort } from './support.ts'

export interface TempDatabase {
  url: string
  drop(): Promise<void>
}

/** A new empty database on the server of `adminUrl` (TEST_DATABASE_URL), named like the test databases so stale ones are dropped. */
export async function tempDatabase(adminUrl: string): Promise<TempDatabase> {
  const { default: postgres } = await import('postgres')
  const name = `tf_test_${process.pid}_${crypto.randomUUID().slice(0, 8)}`
  const admin = postgres(adminUrl, { onnotice: () => {}, max: 1 })
  await admin.unsafe(`create database ${name}`)
  await admin.end()
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: () => dropTestDatabase(adminUrl, name),
  }
}

export interface BunqueueServer {
  url: string
  port: number
  output(): string
  stop(): Promise<void>
}

/**
 * `bunqueue start` (the npm package's CLI) on loopback, storing its queue in
 * PostgreSQL, with the job lease docs/deploy.md recommends (15 s: a killed
 * process's jobs go to another within about that).
 */
export async function startBunqueueServer(postgresUrl: string, dir: string): Promise<BunqueueServer> {
  const port = freePort()
  // two calls may be handed the same released port (seen in a full run: "Is port … in use?")
  let httpPort = freePort()
  while (httpPort === port) httpPort = freePort()
  const cli = join(REPO_ROOT, 'node_modules/bunqueue/dist/cli/index.js')
  const proc = Bun.spawn([process.execPath, cli, 'start', '--host', '127.0.0.1', '--tcp-port', String(port), '--http-port', String(httpPort)], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, BUNQUEUE_STORAGE_DRIVER: 'postgres', BUNQUEUE_POSTGRES_URL: postgresUrl, BUNQUEUE_POSTGRES_LEASE_DURATION_MS: '15000', NO_COLOR: '1' },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  let out = ''
  for (const stream of [proc.stdout, proc.stderr]) {
    void (async () => {
      const decoder = new TextDecoder()
      for await (const chunk of stream) out += decoder.decode(chunk, { stream: true })
    })()
  }
  const until = Date.now() + 30_000
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`bunqueue exited with ${proc.exitCode}\n${out}`)
    const open = await Bun.connect({ hostname: '127.0.0.1', port, socket: { data() {} } }).then(
      (s) => (s.end(), true),
      () => false,
    )
    if (open) break
    if (Date.now() > until) {
      proc.kill('SIGKILL')
      throw new Error(`bunqueue did not listen on ${port}\n${out}`)
    }
    await Bun.sleep(100)
  }
  return {
    url: `bunqueue://127.0.0.1:${port}`,
    port,
    output: () => out,
    async stop() {
      proc.kill('SIGTERM')
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000)
      await proc.exited
      clearTimeout(timer)
    },
  }
}
