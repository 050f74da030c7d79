import { desc, eq } from 'drizzle-orm'
import { z } from 'zod'
import { resetMail, verificationMail } from '../auth/mail.ts'
import { findUserByEmail, issueToken } from '../auth/queries.ts'
import type { AppContext } from '../context.ts'
import { jobFailures } from '../jobs/tables.ts'
import { PermanentJobError, type JobDefinition, type JobModule } from '../jobs/types.ts'
import { errorFields, log } from '../lib/logger.ts'
import type { Mail } from '../lib/mailer.ts'

/**
 * Outgoing mail through the durable job queue (docs/decisions/165-mail-queue.md).
 *
 * A request only queues `{kind, to}`: the same work for every address, so the
 * answer takes the same time whether or not the address has an account, and
 * it never waits for SMTP. The job looks the account up, issues the link or
 * code and sends the mail. The code is made when the mail is sent, so it is
 * never stored in the queue (nor in a failure record), and a mail that waited
 * for SMTP still carries a code with its full validity.
 *
 * A mail that cannot be sent waits for SMTP: the job queues itself again
 * after 1 s, 2 s, 4 s ... at most MAIL_RETRY_MAX_MS apart, for MAIL_RETRY_HOURS
 * (default a day: a verification link is valid that long); then it is given up,
 * recorded with the failed jobs and listed on the admin page's Mail tab.
 */

export const MAIL_RETRY_BASE_MS = 1000
export const MAIL_RETRY_MAX_MS = 30_000

export const mailKinds = ['verify', 'reset'] as const
export type MailKind = (typeof mailKinds)[number]

export interface MailPayload {
  kind: MailKind
  /** The address, as the person typed it (lower-cased by the auth schema). */
  to: string
  /** Origin of the verification link (`https://host`), from the request that asked for it. */
  origin?: string
  /** When the mail was first queued (ISO). */
  since: string
  /** Attempts made so far. */
  attempt: number
  /** Why the last attempt failed (shown to the admin while the mail waits). */
  lastError?: string
}

export const MAIL_SUBJECTS: Record<MailKind, string> = {
  verify: verificationMail('', '').subject,
  reset: resetMail('', '').subject,
}

/** The mail of a payload, with a fresh link or code; null when the account no longer wants one. */
async function compose(ctx: AppContext, p: MailPayload): Promise<Mail | null> {
  const user = await findUserByEmail(ctx.db, p.to)
  if (p.kind === 'verify') {
    // a pending account only: verified meanwhile, or removed, means nothing to send
    if (!user || user.verifiedAt) return null
    const token = await issueToken(ctx.db, user.id, 'verify')
    return verificationMail(p.to, `${p.origin ?? ''}/verify/${token}`)
  }
  if (!user?.verifiedAt) return null
  return resetMail(p.to, await issueToken(ctx.db, user.id, 'reset'))
}

/** Delay before attempt `attempt + 1`: doubling from 1 s, at most 30 s. */
export function mailRetryDelay(attempt: number): number {
  return Math.min(MAIL_RETRY_BASE_MS * 2 ** Math.max(0, attempt - 1), MAIL_RETRY_MAX_MS)
}

export const sendMailJob: JobDefinition<MailPayload> = {
  name: 'mail.send',
  payload: z.object({
    kind: z.enum(mailKinds),
    to: z.string().min(3).max(320),
    origin: z.string().max(2000).optional(),
    since: z.iso.datetime(),
    attempt: z.number().int().min(0),
    lastError: z.string().max(2000).optional(),
  }),
  // the job retries itself (below); this only covers a failure outside sending (e.g. the database)
  attempts: 3,
  timeoutMs: 90_000,
  async run(ctx, p, job) {
    const mail = await compose(ctx, p)
    if (!mail) return
    try {
      await Promise.race([
        ctx.mailer.send(mail),
        new Promise<never>((_, reject) => {
          if (job.signal.aborted) reject(job.signal.reason)
          job.signal.addEventListener('abort', () => reject(job.signal.reason), { once: true })
        }),
      ])
    } catch (err) {
      // an error message from the mail library names the server, never the mail's text
      const reason = err instanceof Error ? err.message : String(err)
      const attempt = p.attempt + 1
      if (job.signal.aborted && (job.signal.reason as { kind?: string })?.kind === 'shutdown') throw err
      if (Date.now() - Date.parse(p.since) >= ctx.env.MAIL_RETRY_HOURS * 3_600_000) {
        log.error('mail given up', { kind: p.kind, to: p.to, attempt, ...errorFields(err) })
        throw new PermanentJobError(`Mail could not be sent: ${reason}`)
      }
      const delayMs = mailRetryDelay(attempt)
      log.warn('mail not sent yet: trying again', { kind: p.kind, to: p.to, attempt, inMs: delayMs, ...errorFields(err) })
      await ctx.jobs.enqueue(sendMailJob, { ...p, attempt, lastError: reason.slice(0, 2000) }, { delayMs })
    }
  },
  owner: async (ctx, p) => (await findUserByEmail(ctx.db, p.to))?.id ?? null,
}

/**
 * Queues a mail (never sends it here, never throws for SMTP: the queue does
 * that part). The same work for every address.
 */
export async function queueMail(ctx: Pick<AppContext, 'jobs'>, kind: MailKind, to: string, origin?: string) {
  await ctx.jobs.enqueue(sendMailJob, { kind, to, ...(origin ? { origin } : {}), since: new Date().toISOString(), attempt: 0 })
}

export const mailJobs: JobModule = { definitions: [sendMailJob] }

export interface OutboxMail {
  /** The queue's job id. */
  id: string
  to: string
  subject: string
  /** Attempts made so far. */
  attempts: number
  lastError: string | null
  queuedAt: string
  nextAttemptAt: string | null
}

export interface FailedMail {
  /** The failure's id: retry or delete it with /api/admin/jobs/{id}. */
  id: string
  to: string
  subject: string
  error: string
  failedAt: string
}

/** The admin's view of outgoing mail: waiting for SMTP (retried) and given up. */
export async function mailOutbox(ctx: Pick<AppContext, 'db' | 'jobs'>): Promise<{ waiting: OutboxMail[]; failed: FailedMail[] }> {
  const [pending, failures] = await Promise.all([
    ctx.jobs.pending?.(sendMailJob.name) ?? [],
    ctx.db
      .select()
      .from(jobFailures)
      .where(eq(jobFailures.name, sendMailJob.name))
      .orderBy(desc(jobFailures.failedAt))
      .limit(100),
  ])
  const waiting = pending.flatMap(({ id, data, runAt }) => {
    const p = sendMailJob.payload.safeParse(data)
    if (!p.success) return []
    return [
      {
        id,
        to: p.data.to,
        subject: MAIL_SUBJECTS[p.data.kind],
        attempts: p.data.attempt,
        lastError: p.data.lastError ?? null,
        queuedAt: p.data.since,
        nextAttemptAt: runAt?.toISOString() ?? null,
      },
    ]
  })
  const failed = failures.flatMap((f) => {
    const p = sendMailJob.payload.safeParse(f.payload)
    if (!p.success) return []
    return [{ id: f.id, to: p.data.to, subject: MAIL_SUBJECTS[p.data.kind], error: f.error, failedAt: f.failedAt.toISOString() }]
  })
  return { waiting: waiting.sort((a, b) => a.queuedAt.localeCompare(b.queuedAt)), failed }
}
