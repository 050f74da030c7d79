import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { z } from 'zod'
import { testQueuePath } from '../../tests/support/app.ts'
import { createTestDatabase } from '../../tests/support/db.ts'
import type { AppContext } from '../context.ts'
import type { Database } from '../db/client.ts'
import { rowsOf } from '../db/rows.ts'
import { BunqueueJobs } from '../jobs/queue.ts'
import type { JobDefinition } from '../jobs/types.ts'
import { type PaceWork, YoutubePace } from './pace.ts'

// Fair shares of the YouTube budget (docs/decisions/220-fair-youtube-gate.md), on the real
// database (PGlite here, PostgreSQL in the second run) and the real embedded queue: one person's
// backlog delays another person's next turn by at most one turn, and work started by hand goes
// before background work.
setDefaultTimeout(90_000)

let database: Database
beforeAll(async () => {
  database = await createTestDatabase()
}, 60_000)
afterAll(async () => {
  await database?.close()
})

describe('the gate', () => {
  test('a second person waits at most one turn behind a first person\'s backlog; work by hand goes first', async () => {
    // a gate of one turn every 1.5 s (the hourly limit off): the order of the turns is what counts
    const pace = new YoutubePace(database.db, { YTDLP_SLEEP_SECONDS: 1.5, YTDLP_MAX_PER_HOUR: 0, BOT_CHECK_PAUSE_SECONDS: 0 })
    const granted: string[] = []
    const take = (who: string, owner: string, work: PaceWork) => pace.take({ owner, work }).then(() => void granted.push(who))

    const backlog = Array.from({ length: 6 }, (_, i) => take(`a${i + 1}`, 'person-a', 'background'))
    while (granted.length < 1) await Bun.sleep(20)
    // person B asks once A's backlog is under way
    const b = take('b1', 'person-b', 'background')
    await b
    const beforeB = granted.slice(0, granted.indexOf('b1'))
    // A's first turn, and at most the one turn already reserved when B came
    expect(beforeB.length).toBeLessThanOrEqual(2)
    expect(beforeB.every((w) => w.startsWith('a'))).toBe(true)

    // a look-up (work by hand) of person C while A still waits: next, or after the one reserved turn
    const grantedBeforeC = granted.length
    await take('c1', 'person-c', 'hand')
    expect(granted.length - grantedBeforeC).toBeLessThanOrEqual(2)
    await Promise.all(backlog)
    // (calls made at the same moment reach the gate in any order: their set is what counts)
    expect(granted.filter((w) => w.startsWith('a')).sort()).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6'])
    // nobody is left waiting at the gate
    const [left] = rowsOf<{ n: number }>(await database.db.execute(sql`select count(*)::int as n from youtube_waiters`))
    expect(Number(left!.n)).toBe(0)
  })

  test('an admin\'s work (the canary) goes before anyone\'s', async () => {
    const pace = new YoutubePace(database.db, { YTDLP_SLEEP_SECONDS: 1, YTDLP_MAX_PER_HOUR: 0, BOT_CHECK_PAUSE_SECONDS: 0 })
    const granted: string[] = []
    const take = (who: string, owner: string | null, work: PaceWork) => pace.take({ owner, work }).then(() => void granted.push(who))
    const hand = Array.from({ length: 4 }, (_, i) => take(`h${i + 1}`, `person-${i}`, 'hand'))
    while (granted.length < 1) await Bun.sleep(20)
    await take('canary', null, 'admin')
    expect(granted.indexOf('canary')).toBeLessThanOrEqual(2)
    await Promise.all(hand)
  })
})

describe('the queue', () => {
  test('background fetches of two people alternate; a job by hand goes before both', async () => {
    const ran: string[] = []
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const def: JobDefinition<{ who: string }> = {
      name: 'test.fetch',
      payload: z.object({ who: z.string() }),
      async run(_ctx, { who }) {
        ran.push(who)
        // the first job holds the only worker until everything is queued
        if (ran.length === 1) await held
      },
    }
    const jobs = new BunqueueJobs([{ definitions: [def] }], {
      dataPath: testQueuePath(),
      queueName: `fair-test-${crypto.randomUUID()}`,
      concurrency: 1,
      defaultTimeoutMs: 30_000,
      scheduler: false,
      retryDelayMs: 10,
    })
    await jobs.start({ db: database.db } as unknown as AppContext)
    try {
      for (let i = 1; i <= 5; i++) await jobs.enqueue(def, { who: `a${i}` }, { fair: { lane: 'background', owner: 'person-a' } })
      while (ran.length < 1) await Bun.sleep(20)
      await jobs.enqueue(def, { who: 'b1' }, { fair: { lane: 'background', owner: 'person-b' } })
      await jobs.enqueue(def, { who: 'b2' }, { fair: { lane: 'background', owner: 'person-b' } })
      await jobs.enqueue(def, { who: 'c1' }, { fair: { lane: 'hand', owner: 'person-c' } })
      release()
      const end = Date.now() + 20_000
      while (ran.length < 8 && Date.now() < end) await Bun.sleep(20)
      // A's first was running; then the job by hand, then B and A take turns
      expect(ran).toEqual(['a1', 'c1', 'b1', 'a2', 'b2', 'a3', 'a4', 'a5'])
    } finally {
      await jobs.stop()
    }
  })
})
