import type { SessionUser } from '../context.ts'
import type { Db } from '../db/client.ts'

/**
 * In-memory cache of validated sessions, keyed by the session id (the token's
 * SHA-256), so the session check on every request does not go to the
 * database. See docs/decisions/004-session-cache.md.
 *
 * - An entry is trusted for at most `ttlMs` (5 s), then re-read: a change made
 *   by another process (logout or reset there, `scripts/admin.ts`, a test
 *   writing to the database) is seen within that time.
 * - Changes made through this process forget the affected entries at once:
 *   logout (session.ts), password change and reset, admin flag (queries.ts),
 *   disable, admin flag and delete by an admin (src/admin/users.ts), account
 *   deletion (account.ts), API token revoke (bearer.ts); proven by
 *   session-invalidation.test.ts. See also docs/decisions/112-session-route-hot-path.md.
 * - A session's own expiry is checked on every hit; sessions due for their
 *   sliding renewal always go to the database.
 * - At most `max` entries; the oldest are dropped first.
 */
export class SessionCache {
  private entries = new Map<string, { user: SessionUser; expiresAt: number; cachedAt: number; tokenId?: string }>()

  constructor(
    readonly ttlMs = 5_000,
    readonly max = 10_000,
  ) {}

  get(id: string, now = Date.now()): { user: SessionUser; expiresAt: number; tokenId?: string } | undefined {
    const entry = this.entries.get(id)
    if (!entry) return undefined
    if (now - entry.cachedAt >= this.ttlMs || entry.expiresAt <= now) {
      this.entries.delete(id)
      return undefined
    }
    return entry
  }

  /** `tokenId`: for API tokens (src/auth/bearer.ts), cached here under their own key prefix. */
  set(id: string, user: SessionUser, expiresAt: Date, now = Date.now(), tokenId?: string) {
    this.entries.delete(id)
    this.entries.set(id, { user, expiresAt: expiresAt.getTime(), cachedAt: now, tokenId })
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!)
  }

  forget(id: string) {
    this.entries.delete(id)
  }

  /** Every cached session of one user (by id or e-mail). */
  forgetUser(match: { id?: string; email?: string }) {
    for (const [key, entry] of this.entries) {
      if ((match.id && entry.user.id === match.id) || (match.email && entry.user.email === match.email)) this.entries.delete(key)
    }
  }

  clear() {
    this.entries.clear()
  }

  get size() {
    return this.entries.size
  }
}

const caches = new WeakMap<Db, SessionCache>()

/** The cache of one database handle (one per app; tests get one per test database). */
export function sessionCache(db: Db): SessionCache {
  let cache = caches.get(db)
  if (!cache) caches.set(db, (cache = new SessionCache()))
  return cache
}
