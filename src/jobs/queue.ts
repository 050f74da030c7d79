import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { DelayedError, Queue, shutdownManager, UnrecoverableError, Worker, type Job } from 'bunqueue/client'
import type { AppContext } from '../context.ts'
import { errorFields, log } from '../lib/logger.ts'
import { metrics } from '../lib/metrics-registry.ts'
import { recordFailure, recordScheduleRun, scheduleOf } from './history.ts'
import { fairPriority, fairStarted } from './fair.ts'
import {
  JobAbort,
  JobLater,
  PermanentJobError,
  type EnqueueOptions,
  type JobDefinition,
  type JobModule,
  type JobRun,
  type Jobs,
  type JobState,
} from './types.ts'

export interface QueueConfig {
  /** SQLite file of the embedded queue (DATA_DIR/queue/jobs.db). */
  dataPath: string
  /**
   * A bunqueue server (QUEUE_URL) instead of the embedded queue: several app
   * processes share its queue, so each job runs once, in one of them.
   */
  connection?: { host: string; port: number; token?: string }
  /** One queue per app instance; tests give each app its own name on the shared manager. */
  queueName?: string
  concurrency: number
  defaultTimeoutMs: number
  /** Register the modules' recurring jobs (SCHEDULER); when off, registered ones are removed. */
  scheduler: boolean
  /** Delay before a failed attempt is retried. */
  retryDelayMs?: number
  /** How often the idle embedded worker looks for due work (default IDLE_POLL_MS). */
  idlePollMs?: number
}

const DEFAULT_ATTEMPTS = 3
const DLQ_SWEEP_MS = 10 * 60 * 1000
/**
 * bunqueue's embedded worker looks for work every `drainDelay` while idle (50 ms
 * by default: ~5 ms CPU per second for nothing). A new job does not wait for
 * this poll (`enqueue` wakes the worker), so it only bounds how late delayed
 * jobs, retries and schedules start (docs/decisions/123-idle-job-worker.md).
 */
const IDLE_POLL_MS = 1000

/**
 * bunqueue's Worker with `wake()`: look for work now instead of at the next idle
 * poll. `scheduleProcessing` is the Worker's own protected step that runs after
 * a job finishes (coalesced on setImmediate, bounded by the free slots).
 */
class WakeableWorker extends Worker {
  wake() {
    this.scheduleProcessing()
  }
}

// bunqueue's embedded manager is one per process and bound to one SQLite file;
// every BunqueueJobs in the process shares it and the last one closed shuts it down.
let managerUsers = 0

interface Running {
  controller: AbortController
  done: Promise<void>
}

/**
 * `Jobs` over bunqueue in embedded mode: one queue, one in-process worker,
 * handlers looked up by job name in the registered modules.
 *
 * Failure policy: a thrown error is retried (`attempts`, default 3) unless it
 * is a PermanentJobError or a timeout; the last failure calls `onGiveUp`. A
 * crash mid-run is retried by bunqueue on restart (costing an attempt); a job
 * that crashed on its last attempt lands in bunqueue's dead-letter queue,
 * which is swept here: `onGiveUp`, then removed. Shutdown aborts running jobs
 * and puts them back without costing an attempt.
 */
export class BunqueueJobs implements Jobs {
  readonly queueName: string
  private readonly queue: Queue
  private worker: WakeableWorker | null = null
  private ctx: AppContext | null = null
  private readonly defs = new Map<string, JobDefinition<any>>()
  private readonly running = new Map<string, Running>()
  private sweepTimer: ReturnType<typeof setInterval> | null = null
  private closed = false

  constructor(
    private readonly modules: JobModule[],
    private readonly config: QueueConfig,
  ) {
    for (const def of modules.flatMap((m) => m.definitions)) {
      if (this.defs.has(def.name)) throw new Error(`job ${def.name} is registered twice`)
      this.defs.set(def.name, def)
    }
    this.queueName = config.queueName ?? 'tunefeed'
    if (!config.connection) {
      mkdirSync(dirname(config.dataPath), { recursive: true })
      managerUsers++
    }
    this.queue = new Queue(this.queueName, this.clientOptions())
  }

  /** Where the queue lives: the process's embedded manager, or the bunqueue server. */
  private clientOptions() {
    const { connection, dataPath } = this.config
    return connection ? { connection } : { embedded: true, dataPath }
  }

  /** Starts the worker, sweeps dead letters, syncs schedules and runs the modules' start hooks. */
  async start(ctx: AppContext) {
    this.ctx = ctx
    for (const module of this.modules) await module.beforeStart?.(ctx)
    this.worker = new WakeableWorker(this.queueName, (job, opts) => this.process(job, opts?.signal), {
      ...this.clientOptions(),
      concurrency: this.config.concurrency,
      ...(this.config.connection ? {} : { drainDelay: this.config.idlePollMs ?? IDLE_POLL_MS }),
      // a bunqueue server hands a dead process's jobs to another once their lease lapses
      // (BUNQUEUE_POSTGRES_LEASE_DURATION_MS, docs/deploy.md): renew well within it
      ...(this.config.connection ? { heartbeatInterval: 5000 } : {}),
    })
    this.worker.on('error', (err) => log.warn('queue worker error', errorFields(err)))
    await this.sweepDeadLetters()
    this.sweepTimer = setInterval(() => void this.sweepDeadLetters(), DLQ_SWEEP_MS)
    this.sweepTimer.unref?.()
    await this.syncSchedules()
    for (const module of this.modules) await module.onStart?.(ctx)
  }

  /** Graceful stop: running jobs are aborted (reason `shutdown`) and requeued, then the worker and the manager close. */
  async stop() {
    if (this.closed) return
    this.closed = true
    if (this.sweepTimer) clearInterval(this.sweepTimer)
    for (const run of this.running.values()) run.controller.abort(new JobAbort('shutdown'))
    await this.worker?.close()
    this.queue.close()
    if (!this.config.connection && --managerUsers === 0) shutdownManager()
  }

  /** Health check: the queue answers and the worker runs. */
  async check() {
    await this.queue.getJobCountsAsync()
    if (!this.worker?.isRunning()) throw new Error('worker is not running')
  }

  async enqueue<P>(def: JobDefinition<P>, payload: P, opts: EnqueueOptions = {}): Promise<string> {
    if (this.defs.get(def.name) !== def) throw new Error(`job ${def.name} is not registered in src/jobs/registry.ts`)
    const data = def.payload.parse(payload)
    const priority = opts.fair && this.ctx ? await fairPriority(this.ctx.db, opts.fair) : undefined
    const job = await this.queue.add(def.name, data, {
      ...this.jobOptions(def),
      durable: true,
      jobId: opts.jobId,
      delay: opts.delayMs,
      priority,
    })
    if (!opts.delayMs) this.worker?.wake()
    return String(job.id)
  }

  async counts(): Promise<Record<string, number>> {
    const counts = await this.queue.getJobCountsAsync()
    return { ...counts }
  }

  async state(jobId: string): Promise<JobState> {
    const state = await this.queue.getJobState(jobId)
    switch (state) {
      case 'waiting':
      case 'prioritized':
      case 'waiting-children':
        return 'waiting'
      case 'delayed':
      case 'active':
      case 'completed':
      case 'failed':
        return state
      default:
        return 'unknown'
    }
  }

  async cancel(jobId: string) {
    const run = this.running.get(jobId)
    if (run) {
      run.controller.abort(new JobAbort('cancel'))
      await run.done
      return
    }
    const state = await this.state(jobId)
    if (state === 'waiting' || state === 'delayed') await this.queue.removeAsync(jobId)
  }

  async pending(name: string) {
    const jobs = await this.queue.getJobsAsync({ state: ['waiting', 'delayed'], start: 0, end: 1000 })
    return jobs
      .filter((j) => j.name === name)
      .map((j) => ({ id: String(j.id), data: j.data as unknown, runAt: j.timestamp ? new Date(j.timestamp + (j.delay ?? 0)) : null }))
  }

  async schedules(): Promise<string[]> {
    const list = await this.queue.getJobSchedulers(0, 1000)
    return list.map((s) => s.id.slice(this.schedulePrefix.length)).sort()
  }

  async nextRuns(): Promise<Record<string, Date>> {
    const list = await this.queue.getJobSchedulers(0, 1000)
    return Object.fromEntries(list.filter((s) => s.next).map((s) => [s.id.slice(this.schedulePrefix.length), new Date(s.next)]))
  }

  /** A finished run of a job that a schedule runs: remembered as that schedule's last run. */
  private async recordRun(name: string, payload: unknown, outcome: 'completed' | 'failed', error: string | null = null) {
    const schedule = scheduleOf(this.modules.flatMap((m) => m.schedules ?? []), name, payload)
    if (schedule && this.ctx) await recordScheduleRun(this.ctx.db, schedule.id, outcome, error)
  }

  private get schedulePrefix() {
    // scheduler ids are global in the manager: keep one queue's apart from another's (tests run several)
    return `${this.queueName}:`
  }

  private jobOptions(def: JobDefinition<any>) {
    // Our own tables hold the results; the queue only holds pending work.
    return {
      attempts: def.attempts ?? DEFAULT_ATTEMPTS,
      backoff: { type: def.backoff ?? 'fixed', delay: this.config.retryDelayMs ?? 1000 },
      removeOnComplete: true,
      removeOnFail: true,
    }
  }

  private async syncSchedules() {
    const wanted = this.config.scheduler ? this.modules.flatMap((m) => m.schedules ?? []) : []
    const ids = new Set(wanted.map((s) => this.schedulePrefix + s.id))
    for (const existing of await this.queue.getJobSchedulers(0, 1000)) {
      if (!ids.has(existing.id)) await this.queue.removeJobScheduler(existing.id)
    }
    for (const s of wanted) {
      const payload = s.job.payload.parse(s.payload)
      await this.queue.upsertJobScheduler(
        this.schedulePrefix + s.id,
        s.pattern ? { pattern: s.pattern } : { every: s.everyMs },
        { name: s.job.name, data: payload, opts: this.jobOptions(s.job) },
      )
    }
  }

  /** Jobs that crashed on their last attempt end in bunqueue's dead-letter queue without our handler knowing. */
  private async sweepDeadLetters() {
    if (!this.ctx || this.closed) return
    try {
      for (const entry of await this.queue.getDlqAsync()) {
        const def = this.defs.get(entry.job.name)
        const parsed = def?.payload.safeParse(entry.job.data)
        const error = new Error(entry.error ?? `gave up: ${entry.reason}`)
        log.warn('job dead-lettered', { job: entry.job.name, id: entry.job.id, reason: entry.reason, error: entry.error })
        if (def?.onGiveUp && parsed?.success) await def.onGiveUp(this.ctx, parsed.data, error)
        if (def && parsed?.success) await recordFailure(this.ctx, def, String(entry.job.id), parsed.data, error)
        await this.queue.removeDlqJobAsync(String(entry.job.id))
      }
    } catch (err) {
      log.error('dead-letter sweep failed', errorFields(err))
    }
  }

  private async process(job: Job<unknown>, queueSignal?: AbortSignal) {
    const ctx = this.ctx!
    const def = this.defs.get(job.name)
    if (!def) throw new UnrecoverableError(`no handler for job ${job.name}`)
    const parsed = def.payload.safeParse(job.data)
    if (!parsed.success) {
      log.error('job payload is invalid', { job: job.name, id: job.id, error: parsed.error.message })
      throw new UnrecoverableError('invalid payload')
    }
    const id = String(job.id)
    if (job.priority < 0) await fairStarted(ctx.db, job.priority).catch((err) => log.warn('fair queue time not moved', errorFields(err)))
    const attempts = def.attempts ?? DEFAULT_ATTEMPTS
    const attempt = Math.min(job.attemptsMade + 1, attempts)
    const controller = new AbortController()
    const timer = setTimeout(
      () => controller.abort(new JobAbort('timeout')),
      def.timeoutMs ?? this.config.defaultTimeoutMs,
    )
    const onQueueAbort = () => controller.abort(new JobAbort('shutdown'))
    queueSignal?.addEventListener('abort', onQueueAbort)
    let finish!: () => void
    const done = new Promise<void>((resolve) => (finish = resolve))
    this.running.set(id, { controller, done })
    const run: JobRun = {
      id,
      attempt,
      attempts,
      signal: controller.signal,
      progress: (percent) => job.updateProgress(Math.max(0, Math.min(100, Math.round(percent)))),
    }
    const started = performance.now()
    log.debug('job started', { job: def.name, id, attempt })
    const record = (outcome: 'completed' | 'retry' | 'failed' | 'cancelled' | 'interrupted' | 'delayed') => {
      metrics.jobsFinished.inc({ job: def.name, outcome })
      metrics.jobDuration.observe({ job: def.name, outcome }, (performance.now() - started) / 1000)
    }
    try {
      await def.run(ctx, parsed.data, run)
      record('completed')
      await this.recordRun(def.name, parsed.data, 'completed')
      log.info('job done', { job: def.name, id, attempt, ms: Math.round(performance.now() - started) })
    } catch (err) {
      const abort = controller.signal.reason instanceof JobAbort ? controller.signal.reason : null
      if (abort?.kind === 'cancel') {
        record('cancelled')
        log.info('job cancelled', { job: def.name, id })
        return
      }
      if (err instanceof JobLater && !abort) {
        // back in the queue until its time, the attempt not counted
        await job.moveToDelayed(Math.max(err.until.getTime(), Date.now() + 1), job.token)
        record('delayed')
        log.info('job waits', { job: def.name, id, until: err.until.toISOString(), why: err.message })
        return
      }
      if (abort?.kind === 'shutdown') {
        record('interrupted')
        log.info('job interrupted by shutdown, requeued', { job: def.name, id })
        throw new DelayedError('interrupted by shutdown')
      }
      const error = abort ?? (err instanceof Error ? err : new Error(String(err)))
      const final = abort?.kind === 'timeout' || err instanceof PermanentJobError || attempt >= attempts
      record(final ? 'failed' : 'retry')
      log.warn('job failed', { job: def.name, id, attempt, attempts, final, ...errorFields(error) })
      if (!final) throw error
      try {
        await def.onGiveUp?.(ctx, parsed.data, error)
      } catch (hookErr) {
        log.error('job give-up hook failed', { job: def.name, id, ...errorFields(hookErr) })
      }
      await recordFailure(ctx, def, id, parsed.data, error)
      await this.recordRun(def.name, parsed.data, 'failed', error.message)
      throw new UnrecoverableError(error.message)
    } finally {
      clearTimeout(timer)
      queueSignal?.removeEventListener('abort', onQueueAbort)
      this.running.delete(id)
      finish()
    }
  }
}
