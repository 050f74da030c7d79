import { eq, sql } from 'drizzle-orm'
import type { Tx } from '../db/client.ts'
import { subsonicPasswords } from '../subsonic/tables.ts'
import { youtubePodcastSecrets } from '../youtube/listen/tables.ts'

/**
 * What a password reset, or a change without `keepTokens`, ends besides sessions and API tokens
 * (docs/decisions/227-recovery-ends-every-credential.md): the Subsonic app password (players sign
 * in with it) and the podcast feed addresses (their secret is replaced: the old ones answer 404).
 * Called inside the change's transaction; the caller forgets the user's cached sign-ins after it
 * (sessionCache.forgetUser drops the app password's cached check too).
 */
export async function endPlayerCredentials(tx: Tx, userId: string): Promise<void> {
  await tx.delete(subsonicPasswords).where(eq(subsonicPasswords.userId, userId))
  // only a secret that exists is replaced (same form as the rotation's: 192 random bits, base64url)
  const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64url')
  await tx.update(youtubePodcastSecrets).set({ secret, createdAt: sql`now()` }).where(eq(youtubePodcastSecrets.userId, userId))
}
