import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { Queue, shutdownManager, Worker } from 'bunqueue/client'
import { z } from 'zod'
import { testQueuePath } from '../../tests/support/app.ts'
import type { AppContext } from '../context.ts'
import { BunqueueJobs } from './queue.ts'
import { JobAbort, PermanentJobError, type JobDefinition, type JobModule } from './types.ts'

// The bunqueue wiring on its real embedded manager (SQLite in a temp file).
setDefaultTimeout(20_000)

const ctx = {} as AppContext
const running: BunqueueJobs[] = []
afterEach(async () => {
  for (const jobs of running.splice(0)) await jobs.stop()
})

async function startJobs(
  modules: JobModule[],
  config: { queueName?: string; scheduler?: boolean; timeoutMs?: number; idlePollMs?: number } = {},
) {
  const jobs = new BunqueueJobs(modules, {
    dataPath: testQueuePath(),
    queueName: config.queueName ?? `queue-test-${crypto.randomUUID()}`,
    concurrency: 2,
    defaultTimeoutMs: config.timeoutMs ?? 10_000,
    scheduler: config.scheduler ?? false,
    retryDelayMs: 10,
    idlePollMs: config.idlePollMs,
  })
  running.push(jobs)
  await jobs.start(ctx)
  return jobs
}

/** A definition recording each run and each give-up; `behave` decides what a run does. */
function recorder(name: string, behave: (attempt: number, signal: AbortSignal) => Promise<void>, extra: Partial<JobDefinition<{ n: number }>> = {}) {
  const runs: { n: number; attempt: number }[] = []
  const givenUp: string[] = []
  const def: JobDefinition<{ n: number }> = {
    name,
    payload: z.object({ n: z.number().int() }),
    async run(_ctx, payload, job) {
      runs.push({ n: payload.n, attempt: job.attempt })
      await behave(job.attempt, job.signal)
    },
    async onGiveUp(_ctx, _payload, error) {
      givenUp.push(error.message)
    },
    ...extra,
  }
  return { def, runs, givenUp }
}

async function until(check: () => boolean, timeoutMs = 10_000) {
  const end = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time')
    await Bun.sleep(20)
  }
}

const waitAbort = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))

describe('BunqueueJobs', () => {
  test('payloads are validated at enqueue; unregistered jobs are refused', async () => {
    const r = recorder('t.ok', async () => {})
    const jobs = await startJobs([{ definitions: [r.def] }])
    await expect(jobs.enqueue(r.def, { n: 1.5 })).rejects.toThrow()
    const other = recorder('t.other', async () => {})
    await expect(jobs.enqueue(other.def, { n: 1 })).rejects.toThrow(/not registered/)
    await jobs.enqueue(r.def, { n: 1 })
    await until(() => r.runs.length === 1)
    expect(r.runs).toEqual([{ n: 1, attempt: 1 }])
    expect(r.givenUp).toEqual([])
  })

  test('a failing job is retried, then given up once', async () => {
    const r = recorder('t.flaky', async (attempt) => {
      throw new Error(`boom ${attempt}`)
    })
    const jobs = await startJobs([{ definitions: [r.def] }])
    await jobs.enqueue(r.def, { n: 2 })
    await until(() => r.givenUp.length === 1)
    expect(r.runs.map((x) => x.attempt)).toEqual([1, 2, 3])
    expect(r.givenUp).toEqual(['boom 3'])
    await Bun.sleep(100)
    expect(r.runs).toHaveLength(3)
  })

  test('a permanent error is not retried; a later success after a transient one is not given up', async () => {
    const permanent = recorder('t.permanent', async () => {
      throw new PermanentJobError('bad input')
    })
    const transient = recorder('t.transient', async (attempt) => {
      if (attempt === 1) throw new Error('blip')
    })
    const jobs = await startJobs([{ definitions: [permanent.def, transient.def] }])
    await jobs.enqueue(permanent.def, { n: 1 })
    await jobs.enqueue(transient.def, { n: 1 })
    await until(() => permanent.givenUp.length === 1 && transient.runs.length === 2)
    expect(permanent.runs).toHaveLength(1)
    expect(permanent.givenUp).toEqual(['bad input'])
    await Bun.sleep(100)
    expect(transient.givenUp).toEqual([])
  })

  test('the time limit aborts the run signal, and the job is given up without retry', async () => {
    let reason: unknown
    const r = recorder(
      't.slow',
      async (_attempt, signal) => {
        await waitAbort(signal).catch((err) => {
          reason = err
          throw err
        })
      },
      { timeoutMs: 150 },
    )
    const jobs = await startJobs([{ definitions: [r.def] }])
    await jobs.enqueue(r.def, { n: 1 })
    await until(() => r.givenUp.length === 1)
    expect(reason).toBeInstanceOf(JobAbort)
    expect((reason as JobAbort).kind).toBe('timeout')
    expect(r.givenUp).toEqual(['Job timed out.'])
    expect(r.runs).toHaveLength(1)
  })

  test('cancel aborts a running job and waits for it; a waiting job is removed', async () => {
    let cleaned = false
    const r = recorder('t.cancel', async (_attempt, signal) => {
      try {
        await waitAbort(signal)
      } finally {
        await Bun.sleep(50)
        cleaned = true
      }
    })
    const jobs = await startJobs([{ definitions: [r.def] }])
    await jobs.enqueue(r.def, { n: 1 }, { jobId: 'running-one' })
    await jobs.enqueue(r.def, { n: 2 }, { jobId: 'later-one', delayMs: 60_000 })
    await until(() => r.runs.length === 1)
    expect(await jobs.state('running-one')).toBe('active')
    await jobs.cancel('running-one')
    expect(cleaned).toBe(true)
    expect(await jobs.state('later-one')).toBe('delayed')
    await jobs.cancel('later-one')
    expect(await jobs.state('later-one')).toBe('unknown')
    expect(r.givenUp).toEqual([])
  })

  test('the same jobId is not added twice while it waits', async () => {
    const r = recorder('t.dedupe', async () => {})
    const jobs = await startJobs([{ definitions: [r.def] }])
    const first = await jobs.enqueue(r.def, { n: 1 }, { jobId: 'same', delayMs: 300 })
    const second = await jobs.enqueue(r.def, { n: 2 }, { jobId: 'same', delayMs: 300 })
    expect(second).toBe(first)
    await until(() => r.runs.length === 1)
    await Bun.sleep(200)
    expect(r.runs).toEqual([{ n: 1, attempt: 1 }])
  })

  test('schedules are registered only with the scheduler on, and removed when it is off', async () => {
    const r = recorder('t.cron', async () => {})
    const module: JobModule = {
      definitions: [r.def],
      schedules: [
        { id: 'daily', job: r.def, payload: { n: 1 }, pattern: '0 4 * * *' },
        { id: 'hourly', job: r.def, payload: { n: 2 }, everyMs: 60 * 60 * 1000 },
      ],
    }
    const queueName = `queue-test-${crypto.randomUUID()}`
    const on = await startJobs([module], { queueName, scheduler: true })
    expect(await on.schedules()).toEqual(['daily', 'hourly'])
    await on.stop()
    running.splice(0)
    const off = await startJobs([module], { queueName, scheduler: false })
    expect(await off.schedules()).toEqual([])
    expect(r.runs).toEqual([])
  })

  test('a new job wakes the idle worker: it does not wait for the idle poll', async () => {
    const r = recorder('t.wake', async () => {})
    // an idle poll far beyond this test's waits: only the wake in enqueue can start the jobs
    const jobs = await startJobs([{ definitions: [r.def] }], { idlePollMs: 600_000 })
    await Bun.sleep(100)
    await jobs.enqueue(r.def, { n: 1 })
    await until(() => r.runs.length === 1, 3_000)
    // again while the worker is between idle polls, and with a job running
    const slow = recorder('t.wake-slow', (_attempt, signal) => waitAbort(signal))
    const busy = await startJobs([{ definitions: [r.def, slow.def] }], { idlePollMs: 600_000 })
    await busy.enqueue(slow.def, { n: 1 }, { jobId: 'slow' })
    await until(() => slow.runs.length === 1, 3_000)
    await busy.enqueue(r.def, { n: 2 })
    await until(() => r.runs.length === 2, 3_000)
    await busy.cancel('slow')
    expect(r.runs).toEqual([
      { n: 1, attempt: 1 },
      { n: 2, attempt: 1 },
    ])
  })

  test('a schedule fires with the idle poll as it is in production', async () => {
    const r = recorder('t.tick', async () => {})
    const module: JobModule = { definitions: [r.def], schedules: [{ id: 'tick', job: r.def, payload: { n: 3 }, everyMs: 300 }] }
    await startJobs([module], { scheduler: true })
    await until(() => r.runs.length >= 2, 8_000)
    expect(r.runs[0]).toEqual({ n: 3, attempt: 1 })
  })

  test('a shutdown puts the running job back; the next start runs it again', async () => {
    let phase = 'first'
    const seen: string[] = []
    const r = recorder('t.restart', async (_attempt, signal) => {
      seen.push(phase)
      if (phase === 'first') await waitAbort(signal)
    })
    const queueName = `queue-test-${crypto.randomUUID()}`
    const first = await startJobs([{ definitions: [r.def] }], { queueName })
    await first.enqueue(r.def, { n: 7 })
    await until(() => r.runs.length === 1)
    await first.stop()
    running.splice(0)
    phase = 'second'
    await startJobs([{ definitions: [r.def] }], { queueName })
    await until(() => seen.includes('second'))
    // the interrupted attempt did not count
    expect(r.runs.map((x) => x.attempt)).toEqual([1, 1])
    expect(r.givenUp).toEqual([])
  })

  test('a job that died on its last attempt is given up at the next start (dead-letter sweep)', async () => {
    const dataPath = testQueuePath()
    const queueName = `queue-test-${crypto.randomUUID()}`
    // simulate a process that died mid-job: the job stays active in SQLite
    const queue = new Queue(queueName, { embedded: true, dataPath })
    let started = () => {}
    const pickedUp = new Promise<void>((resolve) => (started = resolve))
    const worker = new Worker(queueName, () => (started(), new Promise(() => {})), { embedded: true, dataPath })
    await queue.add('t.dies', { n: 9 }, { durable: true, attempts: 1, jobId: 'dies' })
    await pickedUp
    await worker.close(true)
    queue.close()
    shutdownManager()

    const r = recorder('t.dies', async () => {}, { attempts: 1 })
    await startJobs([{ definitions: [r.def] }], { queueName })
    await until(() => r.givenUp.length === 1)
    expect(r.runs).toEqual([])
    expect(r.givenUp[0]).toBeString()
  })
})
