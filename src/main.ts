// The server process, started by src/index.ts once it has checked that it runs
// under Bun. Parses the environment, opens the database (running migrations),
// and serves the API, sockets and the built web app.
import { join } from 'node:path'
import { embedded } from './embedded.ts'
import { parseEnvOrReport, serverStartProblem } from './env.ts'
import { privateDataDir } from './lib/data-dir.ts'
import { errorFields, log, setLogLevel } from './lib/logger.ts'

const env = parseEnvOrReport()
if (!env) process.exit(1)
const problem = serverStartProblem({ binary: !!embedded() })
if (problem) {
  console.error(problem)
  process.exit(1)
}
setLogLevel(env.LOG_LEVEL)
privateDataDir(env.DATA_DIR)

// imported after the environment is known to be valid
const { startServer } = await import('./server.ts')
try {
  const server = await startServer(env, { webRoot: join(import.meta.dir, '../web/dist') })
  log.info('tunefeed listening', { url: `http://localhost:${server.port}`, database: server.databaseKind })
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info('shutting down', { signal })
    // whatever hangs, exit well before systemd's TimeoutStopSec (60 s) kills us mid-write
    setTimeout(() => {
      log.error('shutdown took over 20 s; exiting now')
      process.exit(1)
    }, 20_000).unref()
    await server.stop()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
} catch (err) {
  log.error('start-up failed', errorFields(err))
  process.exit(1)
}
