// Entry point: `bun src/index.ts`. Builds the context, opens the database
// (running migrations), and serves the API, sockets and the built web app.
if (typeof Bun === 'undefined') {
  console.error('Tunefeed runs on Bun, not Node. Start it with `npm start` (Bun comes from npm) or `bun src/index.ts`.')
  process.exit(1)
}

const { join } = await import('node:path')
const { parseEnv, EnvError } = await import('./env.ts')
const { log, setLogLevel, errorFields } = await import('./lib/logger.ts')

let env
try {
  env = parseEnv()
} catch (err) {
  if (err instanceof EnvError) {
    console.error(err.message)
    process.exit(1)
  }
  throw err
}
setLogLevel(env.LOG_LEVEL)

const { startServer } = await import('./server.ts')
try {
  const server = await startServer(env, { webRoot: join(import.meta.dir, '../web/dist') })
  log.info('tunefeed listening', { url: `http://localhost:${server.port}`, database: server.databaseKind })
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info('shutting down', { signal })
    await server.stop()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
} catch (err) {
  log.error('start-up failed', errorFields(err))
  process.exit(1)
}
