import { and, eq, isNull } from 'drizzle-orm'
import type { SessionUser } from '../context.ts'
import type { Db } from '../db/client.ts'
import { userIdentities, users } from './tables.ts'

/**
 * The account an identity provider's verified e-mail signs into: the one
 * linked to its subject before, else the verified account with that e-mail
 * (linked now), else a new verified account without a password. A pending
 * (unverified) account with the address is replaced: its password was never
 * proven to belong to the address's owner. See docs/decisions/072-oidc-sign-in.md.
 */
export async function userForIdentity(db: Db, provider: string, subject: string, email: string): Promise<SessionUser> {
  return db.transaction(async (tx) => {
    const [linked] = await tx
      .select({ id: users.id, email: users.email, admin: users.admin })
      .from(userIdentities)
      .innerJoin(users, eq(users.id, userIdentities.userId))
      .where(and(eq(userIdentities.provider, provider), eq(userIdentities.subject, subject)))
    if (linked) return linked
    await tx.delete(users).where(and(eq(users.email, email), isNull(users.verifiedAt)))
    const [existing] = await tx.select({ id: users.id, email: users.email, admin: users.admin }).from(users).where(eq(users.email, email))
    const user =
      existing ??
      (await tx
        .insert(users)
        .values({ email, passwordHash: null, verifiedAt: new Date() })
        .returning({ id: users.id, email: users.email, admin: users.admin }))[0]!
    await tx.insert(userIdentities).values({ provider, subject, userId: user.id })
    return user
  })
}
