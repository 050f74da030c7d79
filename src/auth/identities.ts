import { and, asc, eq, isNull, sql } from 'drizzle-orm'
import type { SessionUser } from '../context.ts'
import type { Db } from '../db/client.ts'
import { userIdentities, users } from './tables.ts'

/** What a provider sign-in leads to (src/auth/oidc-routes.ts turns it into a session or a redirect). */
export type IdentitySignIn =
  | { kind: 'user'; user: SessionUser }
  /** An account has the e-mail but is not linked to this identity: its owner links it while signed in. */
  | { kind: 'exists' }
  | { kind: 'disabled' }

/** The same address in any letter case (e-mails are stored lower-cased; this does not rely on it). */
const sameEmail = (email: string) => sql`lower(${users.email}) = ${email.toLowerCase()}`

/**
 * The account a provider identity signs into (docs/decisions/155-identity-linking.md):
 * the one linked to its subject; with none linked, a new verified account
 * without a password for a verified e-mail that no account has. An existing
 * account with that e-mail is never reached this way (`exists`): the provider
 * asserting an address does not prove the person owns the account. A pending
 * (unverified) password account with the address is replaced: its password was
 * never proven to belong to the address's owner. A disabled user gets nothing.
 */
export async function signInWithIdentity(db: Db, provider: string, subject: string, email: string): Promise<IdentitySignIn> {
  return db.transaction(async (tx) => {
    const [linked] = await tx
      .select({ id: users.id, email: users.email, admin: users.admin, disabledAt: users.disabledAt })
      .from(userIdentities)
      .innerJoin(users, eq(users.id, userIdentities.userId))
      .where(and(eq(userIdentities.provider, provider), eq(userIdentities.subject, subject)))
    if (linked) return linked.disabledAt ? { kind: 'disabled' } : { kind: 'user', user: { id: linked.id, email: linked.email, admin: linked.admin } }
    await tx.delete(users).where(and(sameEmail(email), isNull(users.verifiedAt)))
    const [existing] = await tx.select({ id: users.id }).from(users).where(sameEmail(email))
    if (existing) return { kind: 'exists' }
    // a sign-up of the same address that committed meanwhile wins on the unique e-mail
    const [user] = await tx
      .insert(users)
      .values({ email: email.toLowerCase(), passwordHash: null, verifiedAt: new Date() })
      .onConflictDoNothing({ target: users.email })
      .returning({ id: users.id, email: users.email, admin: users.admin })
    if (!user) return { kind: 'exists' }
    await tx.insert(userIdentities).values({ provider, subject, userId: user.id })
    return { kind: 'user', user }
  })
}

/** Linking a provider identity to the signed-in account: `linked`, or `taken` by another account. */
export async function linkIdentity(db: Db, provider: string, subject: string, userId: string): Promise<'linked' | 'taken'> {
  const [row] = await db
    .insert(userIdentities)
    .values({ provider, subject, userId })
    .onConflictDoUpdate({
      target: [userIdentities.provider, userIdentities.subject],
      // already this account's: nothing changes; another account's: left alone
      set: { userId: sql`${userIdentities.userId}` },
      setWhere: eq(userIdentities.userId, userId),
    })
    .returning({ userId: userIdentities.userId })
  return row ? 'linked' : 'taken'
}

/** The identities linked to a user, oldest first. */
export async function listIdentities(db: Db, userId: string) {
  return db
    .select({ provider: userIdentities.provider, createdAt: userIdentities.createdAt })
    .from(userIdentities)
    .where(eq(userIdentities.userId, userId))
    .orderBy(asc(userIdentities.createdAt))
}

/**
 * Unlinks a provider identity from a user (docs/decisions/212-unlinking-a-provider.md):
 * `unlinked`; `missing` when none is linked; `last` when it is the account's only way
 * in (no password and no other identity), which stays linked.
 */
export async function unlinkIdentity(db: Db, provider: string, userId: string): Promise<'unlinked' | 'missing' | 'last'> {
  return db.transaction(async (tx) => {
    // the user's row locked: a password reset or another unlink of the same account waits for this one
    const [user] = await tx.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, userId)).for('update')
    const linked = await tx.select({ provider: userIdentities.provider }).from(userIdentities).where(eq(userIdentities.userId, userId))
    if (!user || !linked.some((l) => l.provider === provider)) return 'missing'
    if (!user.passwordHash && linked.length === 1) return 'last'
    await tx.delete(userIdentities).where(and(eq(userIdentities.userId, userId), eq(userIdentities.provider, provider)))
    return 'unlinked'
  })
}
