import { AsyncLocalStorage } from 'node:async_hooks'
import { readFile } from 'node:fs/promises'
import { guardedFetch } from '../lib/guarded-fetch.ts'
import type { AllowList } from '../lib/url-guard.ts'
import type { WebdavAccount } from './schema.ts'

// The `webdav` client fetches on its own. Its fetch is swapped (once, process
// wide) for one that goes through the URL guard inside `uploadToWebdav`
// (the allow-list travels in async context; no redirects: a WebDAV server
// has no business sending us elsewhere) and is plain `fetch` for any other
// user of the client in this process.
const guardAllow = new AsyncLocalStorage<AllowList>()
let patched = false
/** The client, loaded at the first upload, not at start-up (8 MB resident: docs/decisions/311), its fetch patched once. */
async function webdav() {
  const lib = await import('webdav')
  if (patched) return lib
  patched = true
  lib.getPatcher().patch('fetch', (...args: unknown[]) => {
    const [url, init] = args as [string, RequestInit]
    const allow = guardAllow.getStore()
    return allow ? guardedFetch(url, { ...init, allow, maxRedirects: 0 }) : fetch(url, init)
  })
  return lib
}

/** Puts `path` at `/<name>` under the account's URL, replacing a file of that name. */
export async function uploadToWebdav(
  account: WebdavAccount,
  allow: AllowList,
  path: string,
  name: string,
  signal?: AbortSignal,
): Promise<void> {
  const { createClient } = await webdav()
  const client = createClient(account.url, { username: account.username, password: account.password })
  const data = await readFile(path)
  await guardAllow.run(allow, async () => {
    const ok = await client.putFileContents(`/${name}`, data, { overwrite: true, contentLength: data.length, signal })
    if (!ok) throw new Error('the server refused the file')
  })
}

/** Removes `/<name>` under the account's URL; a file already gone is fine. */
export async function deleteFromWebdav(account: WebdavAccount, allow: AllowList, name: string, signal?: AbortSignal): Promise<void> {
  const { createClient } = await webdav()
  const client = createClient(account.url, { username: account.username, password: account.password })
  await guardAllow.run(allow, async () => {
    if (await client.exists(`/${name}`)) await client.deleteFile(`/${name}`, { signal } as never)
  })
}
