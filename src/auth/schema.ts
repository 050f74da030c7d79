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

export type SessionResponse = { email: string; admin: boolean }

export const sendVerify = z.object({ email })
export const changePasswordBody = z.object({ currentPassword: z.string({ error: required }).min(1, 'Required').max(1024), password })
export const deleteAccountBody = z.object({ password: z.string({ error: required }).min(1, 'Required').max(1024) })
export const createApiTokenBody = z.object({
  name: z.string({ error: required }).trim().min(1, 'Required').max(100, 'At most 100 characters'),
})

export type ApiToken = { id: string; name: string; createdAt: string; lastUsedAt: string | null }
export type CreatedApiToken = { id: string; name: string; token: string }
export type Provider = { id: string; name: string }

/** GET /api/auth/verify with a link already spent on a verified account: 400 with this `x-error-kind`; the page says so and offers Login. */
export const ALREADY_VERIFIED_KIND = 'already_verified'
export const ALREADY_VERIFIED = 'This account is already verified: log in with your e-mail and password.'
/** POST /api/auth/create for a verified account (400): the form links to Login and Reset Password. */
export const ACCOUNT_EXISTS = 'Account exists.'
