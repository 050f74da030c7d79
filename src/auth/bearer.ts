import { and, desc, eq, gt, isNull, or } from 'drizzle-orm'
import type { Context, MiddlewareHandler } from 'hono'
import type { AppEnv, SessionUser } from '../context.ts'
import type { Db, Tx } from '../db/client.ts'
import { fail } from '../lib/errors.ts'
import { sessionCache } from './session-cache.ts'
import { apiTokens, users } from './tables.ts'
import { hashToken, randomToken } from './tokens.ts'

/**
 * Personal API tokens: `Authorization: Bearer tf_…` on every /api route and
 * listen socket except the ones behind `requireSession` (tokens, password,
 * account, WebDAV credentials). See docs/decisions/070-api-tokens.md.
 */

export const TOKEN_PREFIX = 'tf_'
/** Cached validations live in the session cache under this prefix, so `forgetUser` drops them too. */
const CACHE_PREFIX = 'token:'
/** Cached entries carry an expiry: the token's own, or this for tokens that do not expire. */
const NEVER = new Date(8.64e15)

/** Not past its `expiresAt` (a token without one does not expire). */
const unexpired = () => or(isNull(apiTokens.expiresAt), gt(apiTokens.expiresAt, new Date()))

/**
 * The token of an `Authorization: Bearer` header, or null when there is none.
 * Any Bearer header (even an empty or malformed one) makes the request a token
 * request: the session cookie is then ignored, which is what lets such requests
 * skip the cookie CSRF check.
 */
export function bearerToken(c: Context): string | null {
  const header = c.req.header('authorization')
  if (!header || !/^bearer(\s|$)/i.test(header)) return null
  return header.slice(6).trim()
}

/**
 * The user behind a token, or null. The one place a token is checked against
 * its user: a disabled user's tokens stop here (the cache is forgotten on disable). Also records `lastUsedAt` (at most once per cache period per process).
 */
export async function validateApiToken(db: Db, token: string): Promise<{ user: SessionUser; tokenId: string } | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null
  const hash = hashToken(token)
  const cache = sessionCache(db)
  const cached = cache.get(CACHE_PREFIX + hash)
  if (cached) return { user: cached.user, tokenId: cached.tokenId! }
  const [row] = await db
    .update(apiTokens)
    .set({ lastUsedAt: new Date() })
    .from(users)
    .where(and(eq(apiTokens.hash, hash), eq(users.id, apiTokens.userId), isNull(users.disabledAt), unexpired()))
    .returning({ tokenId: apiTokens.id, id: users.id, email: users.email, admin: users.admin, expiresAt: apiTokens.expiresAt })
  if (!row) return null
  const user: SessionUser = { id: row.id, email: row.email, admin: row.admin }
  // the cache drops the entry at the token's expiry (src/auth/session-cache.ts)
  cache.set(CACHE_PREFIX + hash, user, row.expiresAt ?? NEVER, Date.now(), row.tokenId)
  return { user, tokenId: row.tokenId }
}

/** Not revoked, not expired and its user not disabled (for sockets, which outlive the request that opened them; see src/ws/listen.ts). */
export async function apiTokenAlive(db: Db, tokenId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: apiTokens.id })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(and(eq(apiTokens.id, tokenId), isNull(users.disabledAt), unexpired()))
  return !!row
}

/** A new token; `expiresAt` null: it does not expire. */
export async function createApiToken(db: Db, userId: string, name: string, expiresAt: Date | null = null) {
  const token = TOKEN_PREFIX + randomToken()
  const [row] = await db
    .insert(apiTokens)
    .values({ userId, name, hash: hashToken(token), expiresAt })
    .returning({ id: apiTokens.id, name: apiTokens.name })
  return { ...row!, token }
}

export async function listApiTokens(db: Db, userId: string) {
  return db
    .select({ id: apiTokens.id, name: apiTokens.name, createdAt: apiTokens.createdAt, lastUsedAt: apiTokens.lastUsedAt, expiresAt: apiTokens.expiresAt })
    .from(apiTokens)
    .where(eq(apiTokens.userId, userId))
    .orderBy(desc(apiTokens.createdAt), desc(apiTokens.id))
}

/** Revokes one of the user's tokens at once (this process's cache too); false when it is not theirs. */
export async function deleteApiToken(db: Db, userId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(apiTokens)
    .where(and(eq(apiTokens.id, id), eq(apiTokens.userId, userId)))
    .returning({ hash: apiTokens.hash })
  for (const { hash } of rows) sessionCache(db).forget(CACHE_PREFIX + hash)
  return rows.length > 0
}

/**
 * Revokes every token of the user (password reset, password change): the ids
 * revoked, whose listen sockets the caller closes. Inside the caller's
 * transaction when given one; the process's cache is forgotten by the caller
 * (sessionCache.forgetUser drops tokens too).
 */
export async function revokeUserApiTokens(db: Tx, userId: string): Promise<string[]> {
  const rows = await db.delete(apiTokens).where(eq(apiTokens.userId, userId)).returning({ id: apiTokens.id })
  return rows.map((r) => r.id)
}

/**
 * Guard for the routes a token must not reach (managing tokens, the password,
 * the account, WebDAV credentials): a stolen token cannot lock its owner out
 * or take the account over. Answers 403 after requireUser's 401.
 */
export const requireSession: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!c.get('user')) fail(401, 'Unauthorized')
  if (c.get('apiTokenId')) fail(403, 'API tokens cannot be used here; sign in instead.')
  await next()
}
