import type { z } from 'zod'
import type { AppContext } from '../context.ts'
import type { FairClaim } from './fair.ts'

/** Handle given to a running job. */
export interface JobRun {
  id: string
  /** Attempt number, starting at 1. */
  attempt: number
  /** Attempts this job gets in all (the definition's `attempts`). */
  attempts: number
  /**
   * Aborted when the job times out, is cancelled (`Jobs.cancel`) or the app
   * shuts down; `signal.reason` is a `JobAbort` saying which.
   */
  signal: AbortSignal
  progress(percent: number): Promise<void>
}

/** Why a run's signal was aborted. */
export class JobAbort extends Error {
  constructor(readonly kind: 'timeout' | 'cancel' | 'shutdown') {
    super(kind === 'timeout' ? 'Job timed out.' : kind === 'cancel' ? 'Job was cancelled.' : 'Server is shutting down.')
    this.name = 'JobAbort'
  }
}

/**
 * Thrown by a handler that cannot go on before `until` (its turn at YouTube,
 * src/tools/pace.ts): the queue puts the job back, delayed until then, without
 * costing an attempt or holding a worker slot meanwhile.
 */
export class JobLater extends Error {
  override name = 'JobLater'
  constructor(
    readonly until: Date,
    message = `waits until ${until.toISOString()}`,
  ) {
    super(message)
  }
}

/** Thrown by a handler for a failure that another attempt would not fix (bad input, tool refused the source). */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError'
}

/**
 * A job declared by name (`feature.verb`) next to the feature that owns it.
 * The payload is validated at enqueue and again at run; handlers are idempotent.
 */
export interface JobDefinition<P = unknown> {
  name: string
  payload: z.ZodType<P>
  run(ctx: AppContext, payload: P, job: JobRun): Promise<void>
  /** Per-run time limit; default from JOB_TIMEOUT_SECONDS. */
  timeoutMs?: number
  /** Attempts before the job is given up (default 3). A crash (SIGKILL) mid-run costs one. */
  attempts?: number
  /** Delay between attempts: the queue's retry delay each time (`fixed`, default) or doubling (`exponential`). */
  backoff?: 'fixed' | 'exponential'
  /**
   * Called once the job is given up: last attempt failed, timed out, threw
   * PermanentJobError, or was found dead-lettered at start-up (crashed on its
   * last attempt). Must be idempotent.
   */
  onGiveUp?(ctx: AppContext, payload: P, error: Error): Promise<void>
  /** The user the job works for (shown with its failure to the admin); none when omitted. */
  owner?(ctx: AppContext, payload: P): Promise<string | null>
  /**
   * What the job works on, in words, for the admin's failed-jobs list ("Artist - Title"); null when
   * that thing is gone (its owner deleted it): the failure is then dropped, not offered for retry.
   */
  describe?(ctx: AppContext, payload: P): Promise<string | null>
  /** Called before an admin retries the given-up job (e.g. clear the failure the job recorded). */
  beforeRetry?(ctx: AppContext, payload: P): Promise<void>
}

export interface EnqueueOptions {
  /** Deduplication key: a job with the same id waiting or running is not added twice. */
  jobId?: string
  delayMs?: number
  /** YouTube work for a person: queued in fair order (src/jobs/fair.ts) instead of first come, first served. */
  fair?: FairClaim
}

/** A recurring job: runs once per period (bunqueue job scheduler, cron syntax or a fixed interval). */
export interface ScheduleDefinition<P = unknown> {
  /** Stable id, e.g. `music.cleanup.daily`. */
  id: string
  job: JobDefinition<P>
  payload: P
  /** Cron pattern (`0 4 * * *`) … */
  pattern?: string
  /** … or a fixed interval in milliseconds. */
  everyMs?: number
}

/**
 * What a feature contributes to the queue (e.g. `src/music/jobs.ts` exports
 * one); listed once in src/jobs/registry.ts.
 */
export interface JobModule {
  definitions: JobDefinition<any>[]
  schedules?: ScheduleDefinition<any>[]
  /** Runs once before the worker takes any job (e.g. clear claims no process holds any more). */
  beforeStart?(ctx: AppContext): Promise<void>
  /** Runs once after the worker started (e.g. re-enqueue work the queue lost). */
  onStart?(ctx: AppContext): Promise<void>
}

export type JobState = 'waiting' | 'delayed' | 'active' | 'completed' | 'failed' | 'unknown'

export interface Jobs {
  enqueue<P>(def: JobDefinition<P>, payload: P, opts?: EnqueueOptions): Promise<string>
  /** Counts by state for /api/health and /metrics. */
  counts(): Promise<Record<string, number>>
  /** Where a job is in the queue; `unknown` once finished and removed, or never added. */
  state(jobId: string): Promise<JobState>
  /**
   * Removes a waiting job, or aborts a running one (signal reason `cancel`)
   * and resolves once its handler returned.
   */
  cancel(jobId: string): Promise<void>
  /** Jobs of `name` waiting or delayed (a retry), with their payloads; optional (the admin's Mail tab). */
  pending?(name: string): Promise<{ id: string; data: unknown; runAt: Date | null }[]>
  /** The scheduler ids currently registered (empty when SCHEDULER is off). */
  schedules(): Promise<string[]>
  /** When each registered schedule runs next (by schedule id). */
  nextRuns(): Promise<Record<string, Date>>
}
