import { existsSync } from 'node:fs'
import { join, posix, resolve } from 'node:path'
import type { MiddlewareHandler } from 'hono'
import { serveStatic } from 'hono/bun'
import { serveStatic as serveFrom } from 'hono/serve-static'
import { embedded } from './embedded.ts'

export interface WebFiles {
  /** Serves a built file when the path names one. */
  files: MiddlewareHandler
  /** Answers with index.html (SPA fallback). */
  index: MiddlewareHandler
}

/**
 * The built web app: from the compiled binary's embedded files when there
 * are any, else from `webRoot` on disk (web/dist). Null when neither has an
 * index.html (API-only: tests, or the web app not built).
 */
export function webFiles(webRoot: string | undefined): WebFiles | null {
  const web = embedded()?.web
  if (web?.['/index.html']) {
    const getContent = async (path: string) => (web[path] ? Bun.file(web[path]) : null)
    const options = { root: '/', join: posix.join, getContent, isDir: (path: string) => path.endsWith('/') }
    return { files: serveFrom(options), index: serveFrom({ ...options, path: 'index.html' }) }
  }
  const root = webRoot && resolve(webRoot)
  if (!root || !existsSync(join(root, 'index.html'))) return null
  // path is joined onto root, which defaults to the working directory, so give both
  return { files: serveStatic({ root }), index: serveStatic({ root, path: 'index.html' }) }
}
