import { eq } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import type { Cipher } from '../lib/secret.ts'
import { toolCookies } from './tables.ts'

/** What the admin status shows of the cookies (never the cookies themselves). */
export interface CookiesStatus {
  set: boolean
  updatedAt: string | null
  count: number
  domains: string[]
}

export const MAX_COOKIES_BYTES = 1024 * 1024

/**
 * The cookies of a Netscape cookies.txt (the format yt-dlp's `--cookies`
 * reads): lines of 7 tab-separated fields, `#` comments, `#HttpOnly_`
 * prefixed lines. Null when the text is not such a file (no valid line, or
 * a line that is neither comment, blank nor cookie).
 */
export function parseNetscapeCookies(text: string): { count: number; domains: string[] } | null {
  const domains = new Set<string>()
  let count = 0
  for (const raw of text.split(/\r?\n/)) {
    let line = raw
    if (line.startsWith('#HttpOnly_')) line = line.slice('#HttpOnly_'.length)
    else if (line.startsWith('#') || !line.trim()) continue
    const fields = line.split('\t')
    if (fields.length !== 7) return null
    const [domain, flag, path, secure, expires] = fields
    if (!domain || !/^(TRUE|FALSE)$/i.test(flag!) || !path?.startsWith('/') || !/^(TRUE|FALSE)$/i.test(secure!) || !/^-?\d+$/.test(expires!)) return null
    domains.add(domain.replace(/^\./, '').toLowerCase())
    count++
  }
  return count > 0 ? { count, domains: [...domains].sort() } : null
}

export async function saveCookies(db: Db, cipher: Cipher, text: string, parsed: { count: number; domains: string[] }) {
  const values = { id: 1, sealed: await cipher.encrypt(text), count: parsed.count, domains: parsed.domains.join(','), updatedAt: new Date() }
  await db.insert(toolCookies).values(values).onConflictDoUpdate({ target: toolCookies.id, set: values })
}

export async function removeCookies(db: Db) {
  await db.delete(toolCookies).where(eq(toolCookies.id, 1))
}

/** The cookies.txt text for a yt-dlp call, or null when none is set. */
export async function loadCookies(db: Db, cipher: Cipher): Promise<string | null> {
  const [row] = await db.select({ sealed: toolCookies.sealed }).from(toolCookies).where(eq(toolCookies.id, 1))
  return row ? cipher.decrypt(row.sealed) : null
}

export async function cookiesStatus(db: Db): Promise<CookiesStatus> {
  const [row] = await db
    .select({ count: toolCookies.count, domains: toolCookies.domains, updatedAt: toolCookies.updatedAt })
    .from(toolCookies)
    .where(eq(toolCookies.id, 1))
  if (!row) return { set: false, updatedAt: null, count: 0, domains: [] }
  return { set: true, updatedAt: row.updatedAt.toISOString(), count: row.count, domains: row.domains ? row.domains.split(',') : [] }
}
