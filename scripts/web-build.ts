/**
 * Whether web/dist is older than what it is built from, and the build itself:
 * shared by `npm start` (scripts/start.ts) and the test runner (scripts/test.ts),
 * so both rebuild exactly when a source changed and never otherwise.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..')
const WEB = join(ROOT, 'web')
const BUILT = join(WEB, 'dist', 'index.html')

/** Newest modification time under `path`, skipping generated and installed folders. */
function newestMtime(path: string, include: (file: string) => boolean = () => true): number {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return include(path) ? stat.mtimeMs : 0
  let newest = 0
  for (const name of readdirSync(path)) {
    if (name === 'node_modules' || name === 'dist' || name === 'styled-system' || name.startsWith('.')) continue
    newest = Math.max(newest, newestMtime(join(path, name), include))
  }
  return newest
}

/** `fresh`, or why a build is needed (`missing`, `stale`). */
export function webBuildState(): 'fresh' | 'missing' | 'stale' {
  if (!existsSync(BUILT)) return 'missing'
  // the web app's own files, the dependencies, and the zod schemas it shares with the server
  const newestSource = Math.max(
    newestMtime(WEB),
    newestMtime(join(ROOT, 'package.json')),
    newestMtime(join(ROOT, 'package-lock.json')),
    newestMtime(join(ROOT, 'src'), (file) => file.endsWith('schema.ts')),
  )
  return statSync(BUILT).mtimeMs >= newestSource ? 'fresh' : 'stale'
}

/** Builds web/dist when it is missing or stale; returns null when it is ready, else why not. */
export function buildWebIfNeeded(log: (line: string) => void = console.log): string | null {
  if (!existsSync(join(WEB, 'index.html'))) return 'web app missing: web/index.html does not exist, nothing to build'
  const state = webBuildState()
  if (state === 'fresh') {
    log('web/dist is up to date')
    return null
  }
  log(state === 'stale' ? 'web/dist is older than its sources: rebuilding' : 'web/dist missing: building the web app (once)')
  const res = spawnSync(process.execPath, ['run', 'build:web'], { cwd: ROOT, stdio: 'inherit' })
  const code = res.error ? 127 : (res.status ?? 1)
  if (code !== 0) return `web build failed (bun run build:web exited ${code})`
  if (!existsSync(BUILT)) return 'web build produced no web/dist/index.html'
  return null
}
