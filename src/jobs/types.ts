import type { z } from 'zod'
import type { AppContext } from '../context.ts'

/** Handle given to a running job. */
export interface JobRun {
  id: string
  /** Attempt number, starting at 1. */
  attempt: number
  /** Aborted when the job times out or the app shuts down. */
  signal: AbortSignal
  progress(percent: number): Promise<void>
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
  /** Attempts before the job is given up (default 3). */
  attempts?: number
}

export interface EnqueueOptions {
  /** Deduplication key: a job with the same id waiting or running is not added twice. */
  jobId?: string
  delayMs?: number
}

export interface Jobs {
  enqueue<P>(def: JobDefinition<P>, payload: P, opts?: EnqueueOptions): Promise<string>
  /** Counts by state for /api/health and /metrics. */
  counts(): Promise<Record<string, number>>
}
