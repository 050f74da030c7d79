import { timingSafeEqual } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { AppContext, SessionUser } from '../context.ts'
import type { Db } from '../db/client.ts'
import { rowsOf } from '../db/rows.ts'
import { validateApiToken } from '../auth/bearer.ts'
import { assertNotLockedOut, clearLoginFailures, recordLoginFailure } from '../auth/lockout.ts'
import { sessionCache } from '../auth/session-cache.ts'
import { users } from '../auth/tables.ts'
import { randomToken } from '../auth/tokens.ts'
import { clientIp } from '../lib/client-ip.ts'
import { hit } from '../lib/rate-limit.ts'
import { md5 } from './ids.ts'
import type { Params } from './params.ts'
import { SubsonicError } from './params.ts'
import { subsonicPasswords } from './tables.ts'

/**
 * Sign-in on /rest (docs/api.md, Subsonic API; docs/decisions/172-subsonic-sign-in.md):
 * `apiKey` (an API token), or `u` with `t` = md5(app password + `s`) and `s`, or `u` with `p`
 * (plain or `enc:` + hex) against the user's app password, never the login password.
 * Failures count as login failures do, under their own keys and separately: per account and
 * address (lock-out with backoff, checked before the password) and per address over all accounts
 * (past its limit a wrong sign-in is answered as locked out; a correct one still passes, so
 * failures on other accounts never refuse a right app password: docs/decisions/226).
 */

/** Validated app passwords, per database handle: `subsonic:<username>` in the session cache vouches for the user (forgotten on disable). */
const passwords = new WeakMap<Db, Map<string, string>>()
const remembered = (db: Db) => {
  let map = passwords.get(db)
  if (!map) passwords.set(db, (map = new Map()))
  return map
}
const cacheKey = (username: string) => `subsonic:${username}`
const FAR = new Date(8.64e15)

/** Forgets what this process remembers of a user's app password (after it changed). */
export function forgetAppPassword(db: Db, username: string) {
  sessionCache(db).forget(cacheKey(username))
  remembered(db).delete(username)
}

export async function appPasswordStatus(db: Db, userId: string): Promise<boolean> {
  const [row] = await db.select({ userId: subsonicPasswords.userId }).from(subsonicPasswords).where(eq(subsonicPasswords.userId, userId))
  return !!row
}

/** A new app password (120 random bits, typable), replacing the previous one. */
export async function createAppPassword(ctx: Pick<AppContext, 'db' | 'cipher'>, user: SessionUser): Promise<string> {
  const password = randomToken().slice(0, 24)
  const sealed = await ctx.cipher.encrypt(password)
  await ctx.db
    .insert(subsonicPasswords)
    .values({ userId: user.id, sealed })
    .onConflictDoUpdate({ target: subsonicPasswords.userId, set: { sealed, createdAt: new Date() } })
  forgetAppPassword(ctx.db, user.email)
  return password
}

export async function deleteAppPassword(db: Db, user: SessionUser) {
  await db.delete(subsonicPasswords).where(eq(subsonicPasswords.userId, user.id))
  forgetAppPassword(db, user.email)
}

const same = (a: string, b: string) => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

type Proof = { kind: 'token'; token: string; salt: string } | { kind: 'password'; password: string }

function proves(proof: Proof, password: string): boolean {
  if (proof.kind === 'password') return same(proof.password, password)
  return same(proof.token.toLowerCase(), md5(password + proof.salt))
}

function decodePassword(p: string): string {
  if (!p.startsWith('enc:')) return p
  const hex = p.slice(4)
  if (!/^([0-9a-f]{2})*$/i.test(hex)) return p
  return Buffer.from(hex, 'hex').toString('utf8')
}

/** The signed-in user of a /rest request, or a SubsonicError (10, 40, 43, 44). */
export async function signIn(ctx: AppContext, c: Context, params: Params): Promise<SessionUser> {
  const apiKey = params.get('apiKey')
  const u = params.get('u')
  const t = params.get('t')
  const p = params.get('p')
  if (apiKey !== undefined) {
    if (u !== undefined || t !== undefined || p !== undefined) throw new SubsonicError(43, 'Multiple conflicting authentication mechanisms provided: send apiKey alone, without u, p or t.')
    const found = apiKey ? await validateApiToken(ctx.db, apiKey) : null
    if (!found) {
      throw (await addressFailed(ctx, c)) ?? new SubsonicError(44, 'Invalid API key: make a new API token on the Account page.')
    }
    return found.user
  }
  if (!u) throw new SubsonicError(10, 'Required parameter is missing: sign in with apiKey, or with u and t and s, or with u and p.')
  if (t !== undefined && p !== undefined) throw new SubsonicError(43, 'Multiple conflicting authentication mechanisms provided: send either t and s, or p.')
  let proof: Proof
  if (t !== undefined) {
    const s = params.get('s')
    if (!s) throw new SubsonicError(10, 'Required parameter is missing: s (the salt of the token t).')
    proof = { kind: 'token', token: t, salt: s }
  } else if (p !== undefined) proof = { kind: 'password', password: decodePassword(p) }
  else throw new SubsonicError(10, 'Required parameter is missing: p, or t and s.')
  const username = u.trim().toLowerCase()

  // hot path: this user's app password was checked within the session cache's few seconds
  const cache = sessionCache(ctx.db)
  const vouched = cache.get(cacheKey(username))
  const known = remembered(ctx.db).get(username)
  if (vouched && known !== undefined && proves(proof, known)) return vouched.user

  const ip = clientIp(c, ctx.env.TRUST_PROXY)
  const policy = { max: ctx.env.RATE_LIMIT_MAX, windowSeconds: ctx.env.RATE_LIMIT_WINDOW_SECONDS }
  const lockKey = `subsonic:${username}`
  try {
    await assertNotLockedOut(ctx.db, lockKey, ip, policy)
  } catch (err) {
    if (err instanceof HTTPException && err.status === 429) throw tooMany(err)
    throw err
  }
  const [row] = rowsOf<{ id: string; email: string; admin: boolean; disabled: boolean; sealed: string | null }>(
    await ctx.db.execute(sql`select u.id, u.email, u.admin, u.disabled_at is not null as disabled, p.sealed
      from ${users} u left join ${subsonicPasswords} p on p.user_id = u.id where u.email = ${username}`),
  )
  let password: string | null = null
  if (row?.sealed) password = await ctx.cipher.decrypt(row.sealed).catch(() => null)
  if (!row || password === null || !proves(proof, password)) {
    cache.forget(cacheKey(username))
    await recordLoginFailure(ctx.db, lockKey, ip, policy)
    const locked = await addressFailed(ctx, c)
    if (locked) throw locked
    throw new SubsonicError(40, 'Wrong username or password: use your e-mail and the app password from the Account page (Music Players), not your login password.')
  }
  await clearLoginFailures(ctx.db, lockKey, ip)
  if (row.disabled) throw new SubsonicError(40, 'This account is disabled.')
  const user: SessionUser = { id: row.id, email: row.email, admin: row.admin }
  cache.set(cacheKey(username), user, FAR)
  remembered(ctx.db).set(username, password)
  return user
}

function tooMany(err: HTTPException) {
  const retry = err.res?.headers.get('Retry-After') ?? '60'
  return new SubsonicError(40, `Too many failed sign-ins: try again in ${retry} seconds.`, { 'Retry-After': retry })
}

/**
 * A failed sign-in counted per address, over all accounts and API keys: past RATE_LIMIT_MAX × 5
 * in the window the failure is answered as a lock-out (the error returned, with Retry-After)
 * until the window ends. Counted only once the credential failed: a right one is never refused
 * for what others tried from the same address (behind a proxy without TRUST_PROXY, everyone's).
 * Only failures count: a player signs every request in.
 */
async function addressFailed(ctx: AppContext, c: Context): Promise<SubsonicError | null> {
  try {
    await hit(ctx.db, `subsonic:fail:ip:${clientIp(c, ctx.env.TRUST_PROXY)}`, ctx.env.RATE_LIMIT_MAX * 5, ctx.env.RATE_LIMIT_WINDOW_SECONDS)
    return null
  } catch (err) {
    if (err instanceof HTTPException && err.status === 429) return tooMany(err)
    throw err
  }
}
