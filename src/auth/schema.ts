import { z } from 'zod'
import { required } from '../lib/fields.ts'

// Shared with the web forms: one definition of what a valid input is.
export const email = z
  .string({ error: required })
  .trim()
  .toLowerCase()
  .pipe(z.email({ error: 'Invalid email' }).max(254))
export const password = z
  .string({ error: required })
  .min(8, { error: 'Password must be at least 8 characters' })
  .max(1024, { error: 'Password is too long' })

export const credentials = z.object({ email, password: z.string({ error: required }).min(1, 'Required').max(1024) })
export const createAccount = z.object({ email, password })
export const sendReset = z.object({ email })
export const resetPassword = z.object({ token: z.string({ error: required }).trim().min(1, 'Required').max(200), password })
export const verifyQuery = z.object({ token: z.string({ error: required }).min(1, 'Required').max(200) })

/** `id`: the account's id (the web app keys per-user settings kept on the device by it). */
export type SessionResponse = { id: string; email: string; admin: boolean }

export const sendVerify = z.object({ email })
/** `keepTokens`: the user's API tokens stay (without it a change revokes them, as a reset does). */
export const changePasswordBody = z.object({
  currentPassword: z.string({ error: required }).min(1, 'Required').max(1024),
  password,
  keepTokens: z.boolean().optional(),
})
export const deleteAccountBody = z.object({ password: z.string({ error: required }).min(1, 'Required').max(1024) })
/** Latest expiry a token may be given, from now (tokens without `expiresAt` do not expire). */
export const TOKEN_MAX_DAYS = 366
const DAY_MS = 24 * 60 * 60 * 1000
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/
const isoDateTime = z.iso.datetime({ offset: true })

/** An ISO date (`2027-01-31`: through the end of that day, UTC) or date-time with a zone; null when it is neither. */
export function parseTokenExpiry(value: string): Date | null {
  if (ISO_DAY.test(value)) {
    const end = new Date(`${value}T23:59:59.999Z`)
    // 2027-02-30 is not a day
    return Number.isNaN(end.getTime()) || end.toISOString().slice(0, 10) !== value ? null : end
  }
  if (!isoDateTime.safeParse(value).success) return null
  const at = new Date(value)
  return Number.isNaN(at.getTime()) ? null : at
}

/** `expiresAt` of a new token: in the future and at most TOKEN_MAX_DAYS ahead; normalized to an ISO date-time (UTC). */
export const tokenExpiresAt = z
  .string()
  .trim()
  .max(40, 'Must be an ISO date such as 2027-01-31 or 2027-01-31T18:00:00Z')
  .transform((value, ctx) => {
    const at = parseTokenExpiry(value)
    const problem = !at
      ? 'Must be an ISO date such as 2027-01-31 or 2027-01-31T18:00:00Z'
      : at.getTime() <= Date.now()
        ? 'Must be in the future'
        : at.getTime() > Date.now() + TOKEN_MAX_DAYS * DAY_MS
          ? `Must be at most ${TOKEN_MAX_DAYS} days from now`
          : null
    if (problem) {
      ctx.addIssue({ code: 'custom', message: problem })
      return z.NEVER
    }
    return at!.toISOString()
  })

export const createApiTokenBody = z.object({
  name: z.string({ error: required }).trim().min(1, 'Required').max(100, 'At most 100 characters'),
  /** Optional; null or absent: the token does not expire. */
  expiresAt: tokenExpiresAt.nullish(),
})

export type ApiToken = { id: string; name: string; createdAt: string; lastUsedAt: string | null; expiresAt: string | null }
export type CreatedApiToken = { id: string; name: string; token: string }
export type Provider = { id: string; name: string }
/** A provider identity linked to the signed-in account (GET /api/auth/identities). */
export type LinkedIdentity = { provider: string; name: string; createdAt: string }

/** GET /api/auth/verify with a link already spent on a verified account: 400 with this `x-error-kind`; the page says so and offers Login. */
export const ALREADY_VERIFIED_KIND = 'already_verified'
export const ALREADY_VERIFIED = 'This account is already verified: log in with your e-mail and password.'
/** POST /api/auth/create for a verified account (400): the form links to Login and Reset Password. */
export const ACCOUNT_EXISTS = 'Account exists.'
