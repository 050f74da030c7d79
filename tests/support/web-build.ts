import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT, run } from './server-process.ts'

const WEB = join(REPO_ROOT, 'web')
const BUILT = join(WEB, 'dist', 'index.html')

function newestMtime(path: string): number {
  const s = statSync(path)
  if (!s.isDirectory()) return s.mtimeMs
  return Math.max(s.mtimeMs, ...readdirSync(path).map((name) => newestMtime(join(path, name))))
}

/** Builds web/dist (`bun run build:web`) when it is missing or older than a web source or config file. */
export async function ensureWebBuild(): Promise<void> {
  if (existsSync(BUILT)) {
    const sources = ['src', 'public', 'index.html', 'panda.config.ts', 'vite.config.ts'].map((p) => join(WEB, p)).filter(existsSync)
    const builtAt = statSync(BUILT).mtimeMs
    if (sources.every((p) => newestMtime(p) <= builtAt)) return
  }
  const result = await run([process.execPath, 'run', 'build:web'], {}, 180_000)
  if (result.code !== 0) throw new Error(`bun run build:web failed (${result.code})\n${result.stdout}\n${result.stderr}`)
}
