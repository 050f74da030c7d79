import { bigint, index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { users } from '../db/users.ts'

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/**
 * Jobs the queue gave up on (the queue itself keeps no failed jobs): what ran,
 * why it failed and whose it was, for the admin's Jobs tab (retry or delete).
 * Written by src/jobs/queue.ts when a job is given up.
 */
export const jobFailures = pgTable(
  'job_failures',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The queue's job id. */
    jobId: text('job_id').notNull(),
    /** `feature.verb`. */
    name: text('name').notNull(),
    payload: jsonb('payload').notNull(),
    error: text('error').notNull(),
    /** The user the job worked for, when it had one (JobDefinition.owner). */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    failedAt: ts('failed_at').notNull().defaultNow(),
  },
  (t) => [index('job_failures_failed_idx').on(t.failedAt)],
)

/** The last run of each recurring job (by schedule id), for the admin's Schedules tab. */
export const scheduleRuns = pgTable('schedule_runs', {
  id: text('id').primaryKey(),
  lastRunAt: ts('last_run_at').notNull(),
  /** `completed` or `failed`. */
  lastOutcome: text('last_outcome', { enum: ['completed', 'failed'] }).notNull(),
  lastError: text('last_error'),
})

/**
 * Fair order in the job queue (src/jobs/fair.ts): per lane (`hand`, `background`) a virtual
 * time, the highest sequence number started so far...
 */
export const jobFairLanes = pgTable('job_fair_lanes', {
  lane: text('lane').primaryKey(),
  vtime: bigint('vtime', { mode: 'number' }).notNull().default(0),
})

/** ... and per owner the last sequence number given: a new job gets max(vtime, last + 1). */
export const jobFairOwners = pgTable(
  'job_fair_owners',
  {
    lane: text('lane').notNull(),
    owner: text('owner').notNull(),
    lastSeq: bigint('last_seq', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.lane, t.owner] })],
)
