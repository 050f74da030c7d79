import { existsSync } from 'node:fs'
import { join, posix, resolve } from 'node:path'
import type { MiddlewareHandler } from 'hono'
import { serveStatic } from 'hono/bun'
import { serveStatic as serveFrom } from 'hono/serve-static'
import { embedded } from './embedded.ts'
import { CONTROL_CHARS } from './lib/fields.ts'

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
    return { files: printablePath(serveFrom(options)), index: printablePath(serveFrom({ ...options, path: 'index.html' })) }
  }
  const root = webRoot && resolve(webRoot)
  if (!root || !existsSync(join(root, 'index.html'))) return null
  // path is joined onto root, which defaults to the working directory, so give both
  return { files: printablePath(serveStatic({ root })), index: printablePath(serveStatic({ root, path: 'index.html' })) }
}

/** No file has a control character in its name: such a path is 404 (NUL made the file lookup throw). */
function printablePath(serve: MiddlewareHandler): MiddlewareHandler {
  return (c, next) => {
    let path = c.req.path
    try {
      path = decodeURIComponent(path)
    } catch {}
    if (CONTROL_CHARS.test(path)) return Promise.resolve(c.json({ detail: 'Not found.' }, 404))
    return serve(c, next)
  }
}
