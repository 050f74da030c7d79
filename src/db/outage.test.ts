import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../../tests/support/app.ts'
import { startPgCluster, type PgCluster } from '../../tests/support/pg-cluster.ts'
import { until } from '../../tests/support/wait.ts'
import { quickUser } from '../../tests/support/youtube.ts'
import { DATABASE_UNAVAILABLE_DETAIL } from '../lib/faults.ts'
import { APP_POSTGRES_TIMEOUTS, openPostgres } from './client.ts'

// Issue 29, 4: a PostgreSQL restart with requests in flight. On a private instance (its own
// initdb, port and pg_ctl) so the restart does not disturb the cluster other tests share.
// Every request gets an answer within the connect timeout: 200, or 503 with Retry-After and a
// sentence while the database cannot be reached; 200 again soon after it is back.

const reason = !process.env.TEST_DATABASE_URL ? 'PostgreSQL suite only (TEST_DATABASE_URL unset)' : null
const cluster: PgCluster | string = reason ?? (await startPgCluster())
const skip = typeof cluster === 'string'
if (skip) console.warn(`database outage test skipped: ${cluster}`)

let t: TestApp
beforeAll(async () => {
  if (skip) return
  t = await createTestApp({ database: await openPostgres((cluster as PgCluster).url, { timeouts: APP_POSTGRES_TIMEOUTS }) })
}, 60_000)
afterAll(async () => {
  if (skip) return
  await t?.close()
  ;(cluster as PgCluster).destroy()
}, 30_000)

interface Answer {
  status: number
  ms: number
  at: number
  retryAfter: string | null
  detail?: string
}

describe.skipIf(skip)('a PostgreSQL restart with requests in flight', () => {
  test('503 with Retry-After while the database is down, never 500, no request stuck; 200 again once it is back', async () => {
    const pg = cluster as PgCluster
    const users = await Promise.all([0, 1, 2, 3].map(() => quickUser(t)))
    for (const u of users) expect((await u.client.get('/api/music/jobs/list')).status).toBe(200)

    const answers: Answer[] = []
    let running = true
    const loop = async (u: (typeof users)[number]) => {
      while (running) {
        const started = performance.now()
        const res = await u.client.get('/api/music/jobs/list')
        const body = res.status === 200 ? null : ((await res.json().catch(() => ({}))) as { detail?: string })
        if (res.status === 200) await res.arrayBuffer()
        answers.push({ status: res.status, ms: performance.now() - started, at: performance.now(), retryAfter: res.headers.get('retry-after'), detail: body?.detail })
        await Bun.sleep(20)
      }
    }
    const loops = users.map(loop)
    try {
      await until('answers before the restart', () => answers.length >= 8, 20_000, 20)
      await pg.stop('fast')
      await until('503s while the database is down', () => answers.filter((a) => a.status === 503).length >= 6, 30_000, 20)
      await pg.start()
      const back = performance.now()
      await until('200 again after the restart', () => answers.some((a) => a.status === 200 && a.at - a.ms > back), 30_000, 20)
      const firstOk = answers.find((a) => a.status === 200 && a.at - a.ms > back)!
      const count = (status: number) => answers.filter((a) => a.status === status).length
      console.log(
        `database back → first 200 after ${Math.round(firstOk.at - back)} ms; answers: ${count(200)} × 200, ${count(503)} × 503, ${answers.length - count(200) - count(503)} other; slowest ${Math.round(Math.max(...answers.map((a) => a.ms)))} ms`,
      )
    } finally {
      running = false
      await Promise.all(loops)
    }
    const statuses = new Set(answers.map((a) => a.status))
    expect([...statuses].sort()).toEqual([200, 503])
    for (const a of answers.filter((x) => x.status === 503)) {
      expect(a.retryAfter).toMatch(/^\d+$/)
      expect(a.detail).toBe(DATABASE_UNAVAILABLE_DETAIL)
    }
    // no request waited on a dead connection: each answered within the connect timeout and a margin
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(APP_POSTGRES_TIMEOUTS.connectTimeoutSeconds * 1000 + 3000)
  }, 120_000)
})
