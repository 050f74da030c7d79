import { and, eq, gt, isNotNull, isNull, ne } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { assertNotLastAdmin, lockAdminChanges } from './admins.ts'
import { revokeUserApiTokens } from './bearer.ts'
import { endPlayerCredentials } from './recovery.ts'
import { sessionCache } from './session-cache.ts'
import { authTokens, sessions, users } from './tables.ts'
import { hashToken, randomCode, randomToken } from './tokens.ts'

export const VERIFY_TTL_MS = 24 * 60 * 60 * 1000
export const RESET_TTL_MS = 15 * 60 * 1000

export const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: 'argon2id' })

// A real hash to verify against when the e-mail is unknown, so both paths cost the same.
let dummyHash: Promise<string> | undefined
export async function verifyPassword(password: string, hash: string | null | undefined): Promise<boolean> {
  if (!hash) {
    dummyHash ??= hashPassword('not-a-real-password')
    await Bun.password.verify(password, await dummyHash)
    return false
  }
  return Bun.password.verify(password, hash)
}

export async function findUserByEmail(db: Db, email: string) {
  const [user] = await db.select().from(users).where(eq(users.email, email))
  return user
}

/** Creates a user; returns null when the e-mail is taken. */
export async function createUser(db: Db, email: string, password: string, opts: { verified?: boolean; admin?: boolean } = {}) {
  const passwordHash = await hashPassword(password)
  const [user] = await db
    .insert(users)
    .values({ email, passwordHash, admin: opts.admin ?? false, verifiedAt: opts.verified ? new Date() : null })
    .onConflictDoNothing({ target: users.email })
    .returning()
  return user ?? null
}

/**
 * Sign-up again for an e-mail whose account was never verified: the pending
 * account is replaced by a new one (new password; its links stop working), so
 * nobody can hold an address they do not own. Null when the account is verified
 * (or does not exist).
 */
export async function replacePendingUser(db: Db, email: string, password: string) {
  const passwordHash = await hashPassword(password)
  return db.transaction(async (tx) => {
    const gone = await tx
      .delete(users)
      .where(and(eq(users.email, email), isNull(users.verifiedAt)))
      .returning({ id: users.id })
    if (!gone.length) return null
    const [user] = await tx.insert(users).values({ email, passwordHash }).returning()
    return user!
  })
}

export async function issueToken(db: Db, userId: string, kind: 'verify' | 'reset'): Promise<string> {
  const token = kind === 'verify' ? randomToken() : randomCode()
  const ttl = kind === 'verify' ? VERIFY_TTL_MS : RESET_TTL_MS
  // only the newest code or link of a kind is valid
  await db.delete(authTokens).where(and(eq(authTokens.userId, userId), eq(authTokens.kind, kind)))
  await db.insert(authTokens).values({ hash: hashToken(token), kind, userId, expiresAt: new Date(Date.now() + ttl) })
  return token
}

/** Spends a token atomically: returns its user id, or null if unknown, used, expired or of another kind. */
export async function consumeToken(db: Db, token: string, kind: 'verify' | 'reset'): Promise<string | null> {
  const hash = hashToken(kind === 'reset' ? token.toUpperCase() : token)
  const [row] = await db
    .update(authTokens)
    .set({ usedAt: new Date() })
    .where(and(eq(authTokens.hash, hash), eq(authTokens.kind, kind), isNull(authTokens.usedAt), gt(authTokens.expiresAt, new Date())))
    .returning({ userId: authTokens.userId })
  return row?.userId ?? null
}

/**
 * A verification link opened again (a reload, a mail scanner that opened it first): true when
 * it was spent on an account that is verified now, so the page can say so rather than "not valid".
 */
export async function alreadyVerifiedBy(db: Db, token: string): Promise<boolean> {
  const [row] = await db
    .select({ verifiedAt: users.verifiedAt })
    .from(authTokens)
    .innerJoin(users, eq(users.id, authTokens.userId))
    .where(and(eq(authTokens.hash, hashToken(token)), eq(authTokens.kind, 'verify'), isNotNull(authTokens.usedAt)))
  return !!row?.verifiedAt
}

export async function markVerified(db: Db, userId: string) {
  await db.update(users).set({ verifiedAt: new Date() }).where(and(eq(users.id, userId), isNull(users.verifiedAt)))
}

/**
 * Sets a new password and revokes every session of the user (but `keepSessionId`,
 * the one that changed it) and every API token, the Subsonic app password and the
 * podcast feed addresses (unless `keepTokens`; src/auth/recovery.ts), in one
 * transaction. Returns the ids of the revoked tokens (their sockets are the caller's to close).
 */
export async function changePassword(
  db: Db,
  userId: string,
  password: string,
  opts: { keepSessionId?: string; keepTokens?: boolean } = {},
): Promise<string[]> {
  const passwordHash = await hashPassword(password)
  const revoked = await db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash }).where(eq(users.id, userId))
    const others = opts.keepSessionId ? ne(sessions.id, opts.keepSessionId) : undefined
    await tx.delete(sessions).where(and(eq(sessions.userId, userId), others))
    if (opts.keepTokens) return []
    await endPlayerCredentials(tx, userId)
    return revokeUserApiTokens(tx, userId)
  })
  // sessions and tokens alike (src/auth/bearer.ts caches tokens with their user)
  sessionCache(db).forgetUser({ id: userId })
  return revoked
}

/**
 * Grants or revokes admin by e-mail (scripts and tests). Revoking takes the same last-admin lock
 * and check as the admin page (src/auth/admins.ts): 409 `Cannot remove the last admin.`.
 * False when no account has that e-mail.
 */
export async function setAdmin(db: Db, email: string, admin: boolean): Promise<boolean> {
  const found = await db.transaction(async (tx) => {
    await lockAdminChanges(tx)
    const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email))
    if (!user) return false
    if (!admin) await assertNotLastAdmin(tx, user.id)
    await tx.update(users).set({ admin }).where(eq(users.id, user.id))
    return true
  })
  sessionCache(db).forgetUser({ email })
  return found
}
