import { printable } from '../lib/fields.ts'
import { z } from 'zod'

/** Query of GET /api/admin/users: a page, and `q` (part of the e-mail) to search. */
export const userListQuery = z.object({
  page: z.coerce.number({ error: 'Must be a number' }).int().min(1).max(1_000_000).default(1),
  per_page: z.coerce.number({ error: 'Must be a number' }).int().min(1).max(100).default(20),
  q: printable(z.string()).trim().max(200).optional(),
})

/** Body of PATCH /api/admin/users/{id}. */
export const userPatch = z
  .object({
    admin: z.boolean().optional(),
    disabled: z.boolean().optional(),
    /** Keep quota in MB (1,048,576 bytes); null: no limit (docs/api.md "Keeping videos"). */
    keepQuotaMb: z.number({ error: 'must be a whole number of at least 1, or null' }).int('must be a whole number').min(1, 'must be at least 1').max(1_000_000_000, 'is too large').nullable().optional(),
  })
  .strict()


/** A user as the admin's list shows it (docs/api.md, Admin). */
export interface AdminUser {
  id: string
  email: string
  admin: boolean
  verified: boolean
  disabled: boolean
  createdAt: string
  lastSeenAt: string | null
  jobCount: number
  subscriptionCount: number
  /** null: no limit. */
  keepQuotaMb: number | null
  keepUsedBytes: number
}

/** A job the queue gave up on, for the Jobs tab. */
export interface AdminFailedJob {
  id: string
  jobId: string
  name: string
  /** What the job worked on ("Artist - Title" for a music job); null when the job kind does not say. */
  title: string | null
  error: string
  owner: { id: string; email: string } | null
  failedAt: string
}

export interface AdminSchedule {
  name: string
  every: string
  lastRunAt: string | null
  lastOutcome: 'completed' | 'failed' | null
  lastError: string | null
  nextRunAt: string | null
  /** Registered with the queue's scheduler (SCHEDULER on). */
  active: boolean
}

/** GET /api/admin/mail: the mail settings in use (never the SMTP password). */
export interface AdminMail {
  transport: 'smtp' | 'files'
  host: string | null
  port: number | null
  secure: boolean
  username: string | null
  from: string
  /** Where mails are saved when there is no SMTP server. */
  folder: string | null
}
