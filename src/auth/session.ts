import { and, eq, gt, isNull, lt } from 'drizzle-orm'
import type { Context, MiddlewareHandler } from 'hono'
import { deleteCookie, setCookie } from 'hono/cookie'
import type { AppContext, AppEnv, SessionUser } from '../context.ts'
import type { Db } from '../db/client.ts'
import { fail } from '../lib/errors.ts'
import { requestProtocol } from '../lib/origin.ts'
import { bearerToken, validateApiToken } from './bearer.ts'
import { sessionCache } from './session-cache.ts'
import { sessions, users } from './tables.ts'
import { hashToken, randomToken } from './tokens.ts'

export const SESSION_COOKIE = 'tunefeed_session'
const DAY = 24 * 60 * 60 * 1000
export const SESSION_TTL = 30 * DAY
/** users.lastSeenAt (the admin's user list) is written at most this often per user (an hour left it at the first sign-in of a session). */
export const LAST_SEEN_EVERY = 5 * 60 * 1000

export async function createSession(db: Db, userId: string): Promise<{ token: string; expiresAt: Date }> {
  const token = randomToken()
  const expiresAt = new Date(Date.now() + SESSION_TTL)
  await db.insert(sessions).values({ id: hashToken(token), userId, expiresAt })
  return { token, expiresAt }
}

/**
 * A session the cache (session-cache.ts) vouches for: validated within its TTL and not yet due
 * for its sliding renewal. Null means "ask the database" (validateSession).
 */
function cachedSession(db: Db, id: string): SessionUser | null {
  const cached = sessionCache(db).get(id)
  return cached && cached.expiresAt - Date.now() >= SESSION_TTL / 2 ? cached.user : null
}

/**
 * Looks the session up in the database by its id, the token's SHA-256 (the lookup itself is the
 * comparison, so no timing leak on the token), when the cache did not vouch for it. Sliding
 * expiry: past half its life a session is pushed to a fresh 30 days. The answer is cached.
 */
async function validateSession(db: Db, id: string): Promise<{ user: SessionUser; renewedUntil: Date | null } | null> {
  const cache = sessionCache(db)
  // the one place a session meets its user: a disabled user's sessions stop here (the cache is forgotten on disable)
  const [row] = await db
    .select({ id: users.id, email: users.email, admin: users.admin, expiresAt: sessions.expiresAt, lastSeenAt: users.lastSeenAt })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, id), gt(sessions.expiresAt, new Date()), isNull(users.disabledAt)))
  if (!row) {
    cache.forget(id)
    return null
  }
  let renewedUntil: Date | null = null
  if (row.expiresAt.getTime() - Date.now() < SESSION_TTL / 2) {
    renewedUntil = new Date(Date.now() + SESSION_TTL)
    await db.update(sessions).set({ expiresAt: renewedUntil }).where(eq(sessions.id, id))
  }
  if (!row.lastSeenAt || Date.now() - row.lastSeenAt.getTime() > LAST_SEEN_EVERY) {
    await db.update(users).set({ lastSeenAt: new Date() }).where(eq(users.id, row.id))
  }
  const fresh = { id: row.id, email: row.email, admin: row.admin }
  cache.set(id, fresh, renewedUntil ?? row.expiresAt)
  return { user: fresh, renewedUntil }
}

/** Ends one session (logout). */
export async function deleteSession(db: Db, sessionId: string) {
  sessionCache(db).forget(sessionId)
  await db.delete(sessions).where(eq(sessions.id, sessionId))
}

/** Logout: the session and the sockets opened with it (on this process; others see it at their next ping). */
export async function endSession(ctx: Pick<AppContext, 'db' | 'hub'>, sessionId: string) {
  await deleteSession(ctx.db, sessionId)
  ctx.hub.closeSessions({ sessionId })
}

/**
 * Still signed in? For sockets, which outlive the request that opened them:
 * the cache (forgotten at once on this process's logout or reset, re-read
 * after 5 s otherwise), else the database.
 */
export async function sessionAlive(db: Db, sessionId: string): Promise<boolean> {
  const cached = sessionCache(db).get(sessionId)
  if (cached) return true
  const [row] = await db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.id, sessionId), gt(sessions.expiresAt, new Date())))
  return !!row
}

export async function deleteExpiredSessions(db: Db) {
  await db.delete(sessions).where(lt(sessions.expiresAt, new Date()))
}

function isHttps(c: Context, trustProxy: boolean): boolean {
  return requestProtocol(c.req, trustProxy) === 'https'
}

export function setSessionCookie(c: Context, token: string, expires: Date, trustProxy: boolean) {
  setCookie(c, SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'Lax',
    secure: isHttps(c, trustProxy),
    path: '/',
    expires,
  })
}

export function clearSessionCookie(c: Context) {
  deleteCookie(c, SESSION_COOKIE, { path: '/' })
}

/** Who is asking: the request's `user` with its session or API token (at most one of the two). */
function signIn(c: Context<AppEnv>, user: SessionUser | null, sessionId: string | null, apiTokenId: string | null) {
  c.set('user', user)
  c.set('sessionId', sessionId)
  c.set('apiTokenId', apiTokenId)
}

/**
 * Reads the session cookie and fills `user` (or null): the first thing every /api request
 * does after the origin check (src/app.ts), so it skips Hono's general cookie parser. No cookie,
 * or a session the cache vouches for (the hot path of every signed-in request), is settled at
 * once, without a promise; otherwise the returned promise settles once the database answered.
 */
export function readSession(c: Context<AppEnv>, db: Db, trustProxy: boolean): Promise<void> | void {
  // an API token instead (src/auth/bearer.ts): then the cookie is not read at all
  const bearer = bearerToken(c)
  if (bearer !== null) return readApiToken(c, db, bearer)
  const token = sessionToken(c.req.raw.headers.get('cookie'))
  if (!token) return signIn(c, null, null, null)
  const id = hashToken(token)
  const user = cachedSession(db, id)
  if (user) return signIn(c, user, id, null)
  signIn(c, null, null, null)
  return validateSession(db, id).then((found) => {
    if (!found) return
    signIn(c, found.user, id, null)
    if (found.renewedUntil) setSessionCookie(c, token, found.renewedUntil, trustProxy)
  })
}

async function readApiToken(c: Context<AppEnv>, db: Db, bearer: string) {
  signIn(c, null, null, null)
  const found = await validateApiToken(db, bearer)
  if (found) signIn(c, found.user, null, found.tokenId)
}

/** The session cookie's value in a Cookie header (`name=value; ...`), or null. */
export function sessionToken(header: string | null): string | null {
  if (!header) return null
  for (let at = header.indexOf(SESSION_COOKIE); at !== -1; at = header.indexOf(SESSION_COOKIE, at + 1)) {
    const start = at + SESSION_COOKIE.length
    // the whole name: at the start or after `;` (and spaces), followed by `=`
    if (header.charCodeAt(start) !== 61 || !/(^|;)\s*$/.test(header.slice(0, at))) continue
    const end = header.indexOf(';', start)
    let value = header.slice(start + 1, end === -1 ? undefined : end).trim()
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1)
    return value || null
  }
  return null
}

/** Guard: 401 `Unauthorized` before any validation runs. */
export const requireUser: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!c.get('user')) fail(401, 'Unauthorized')
  await next()
}

/** Guard: 401 for anonymous, 403 `Forbidden` for signed-in non-admins. */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const user = c.get('user')
  if (!user) fail(401, 'Unauthorized')
  if (!user.admin) fail(403, 'Forbidden')
  await next()
}

/** The signed-in user inside a route behind requireUser. */
export function currentUser(c: Context<AppEnv>): SessionUser {
  const user = c.get('user')
  if (!user) fail(401, 'Unauthorized')
  return user
}
