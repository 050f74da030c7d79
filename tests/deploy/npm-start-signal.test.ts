import { afterAll, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ServerProcess, startServerProcess } from '../support/server-process.ts'
import { ensureWebBuild } from '../support/web-build.ts'

// `npm start` under a process manager (issue 37, minor 8): the manager signals npm, the one
// process it started. SIGTERM to npm reaches the Bun server, which says it is shutting down,
// stops listening and exits; nothing of it is left serving.
setDefaultTimeout(300_000)

const dataDir = mkdtempSync(join(tmpdir(), 'tunefeed-npm-start-'))
let server: ServerProcess | undefined
afterAll(async () => {
  if (server && server.proc.exitCode === null) server.proc.kill('SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
})

/** Whether anything still answers on the port. */
const answers = (url: string) =>
  fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2_000) }).then(
    () => true,
    () => false,
  )

test('SIGTERM to npm stops the server cleanly', async () => {
  await ensureWebBuild()
  server = await startServerProcess({ DATA_DIR: dataDir }, 240_000, { cmd: ['npm', 'start', '--silent'] })
  expect(await answers(server.url)).toBe(true)
  const started = Date.now()
  const code = await server.stop('SIGTERM')
  // npm ends with the server's own exit (0), not by the signal
  expect(code).toBe(0)
  expect(server.stdout()).toContain('"msg":"shutting down","signal":"SIGTERM"')
  expect(await answers(server.url)).toBe(false)
  expect(Date.now() - started).toBeLessThan(20_000)
})
