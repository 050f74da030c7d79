import { log } from './logger.ts'

/**
 * Requests that came through a proxy this app does not trust (docs/decisions/226): an
 * X-Forwarded-For header while TRUST_PROXY is off. Every such request then has the proxy's
 * address, so the per-address limits (sign-in, /rest) count everyone together. Said once in the
 * log (at the first such request after start) and on the admin status as
 * `proxy.untrustedForwarded`. Kept per app (its env object): one per process outside tests.
 */
const seen = new WeakSet<object>()

/** Called by the app's edge for each request until the first one is seen (cheap: one header read). */
export function noteForwarded(owner: object, forwardedFor: string | undefined): void {
  if (forwardedFor === undefined || seen.has(owner)) return
  seen.add(owner)
  log.warn(
    'requests arrive with X-Forwarded-For but TRUST_PROXY is off: every client seems to come from the proxy, so sign-in limits count them all together; set TRUST_PROXY=1 when a proxy you run is in front',
    {},
  )
}

export const untrustedForwarded = (owner: object): boolean => seen.has(owner)
