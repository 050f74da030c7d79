/**
 * Command dispatch of the compiled binary (dist/tunefeed, see build-binary.ts):
 *
 *   tunefeed                    start the server (what `bun src/index.ts` does)
 *   tunefeed admin <command>    scripts/admin.ts (create-user, grant-admin, ...)
 *   tunefeed backup <command>   scripts/backup.ts (create, restore, inspect)
 *   tunefeed migrate-to-postgres  scripts/migrate-to-postgres.ts
 *   tunefeed healthcheck        exit 0 when this machine's server answers /api/health (Docker HEALTHCHECK)
 *   tunefeed version            print the version
 *
 * Settings come from the environment exactly as for the server.
 */
import { embedded } from '../src/embedded.ts'

const HELP = `Usage: tunefeed [command]

  (no command)         start the server
  admin <command>      account administration (tunefeed admin help)
  backup <command>     create, restore or inspect a backup archive (tunefeed backup help)
  migrate-to-postgres  copy the embedded database into DATABASE_URL
  healthcheck          exit 0 if the server on PORT answers /api/health
  version              print the version

Configuration is read from environment variables (see docs/deploy.md).`

export async function runBinary(argv: string[]) {
  const [command, ...rest] = argv
  switch (command) {
    case undefined:
    case 'serve':
      await import('../src/main.ts')
      return
    case 'admin': {
      const { main } = await import('./admin.ts')
      process.exit(await main(rest))
    }
    case 'backup': {
      const { main } = await import('./backup.ts')
      process.exit(await main(rest))
    }
    case 'migrate-to-postgres': {
      const { main } = await import('./migrate-to-postgres.ts')
      process.exit(await main(rest))
    }
    case 'healthcheck':
      process.exit(await healthcheck())
    case 'version':
    case '--version':
      console.log(embedded()?.version ?? 'source')
      return
    case 'help':
    case '--help':
    case '-h':
      console.log(HELP)
      return
    default:
      console.error(`Unknown command: ${command}\n\n${HELP}`)
      process.exit(2)
  }
}

/** GET /api/health on this machine's server (HOST/PORT from the environment). */
async function healthcheck(): Promise<number> {
  const { parseEnv } = await import('../src/env.ts')
  const env = parseEnv()
  const host = ['0.0.0.0', '::', ''].includes(env.HOST) ? '127.0.0.1' : env.HOST.includes(':') ? `[${env.HOST}]` : env.HOST
  try {
    const res = await fetch(`http://${host}:${env.PORT}/api/health`, { signal: AbortSignal.timeout(4000) })
    console.log(`${res.status} ${await res.text()}`)
    return res.ok ? 0 : 1
  } catch (err) {
    console.error(`health check failed: ${err instanceof Error ? err.message : String(err)}`)
    return 1
  }
}
