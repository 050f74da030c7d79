import { describe, expect, test } from 'bun:test'
import { PGlite } from '@electric-sql/pglite'
import { mountTmpfs, type Tmpfs } from '../../tests/support/tmpfs.ts'
import { isDatabaseUnavailable, isDiskFull } from './faults.ts'

describe('fault recognition', () => {
  test('disk full: ENOSPC, EDQUOT, PostgreSQL 53100, wrapped in a cause; other errors are not', () => {
    expect(isDiskFull(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }))).toBe(true)
    expect(isDiskFull(new Error('Failed query', { cause: Object.assign(new Error('could not extend file'), { code: '53100' }) }))).toBe(true)
    expect(isDiskFull(Object.assign(new Error('quota'), { code: 'EDQUOT' }))).toBe(true)
    expect(isDiskFull(Object.assign(new Error('nope'), { code: 'ENOENT' }))).toBe(false)
  })

  test('database unavailable: lost or refused connections, shutdown, statement timeout; a constraint error is not', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'CONNECTION_CLOSED', 'CONNECT_TIMEOUT', '57P01', '57P03', '08006', '57014']) {
      expect(isDatabaseUnavailable(new Error('Failed query: select 1', { cause: Object.assign(new Error(code), { code }) }))).toBe(true)
    }
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false)
    // a refused connection is the database's only when a query met it (not an upstream fetch's)
    expect(isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(false)
  })

  const fs = mountTmpfs('80m')
  if (typeof fs === 'string') console.warn(`PGlite disk-full test skipped: ${fs}`)
  test.skipIf(typeof fs === 'string')('PGlite on a full disk: the error is recognised, and the database works again once there is room', async () => {
    const tmp = fs as Tmpfs
    const db = new PGlite(`${tmp.dir}/db`)
    try {
      await db.query('create table t (x text)')
      tmp.fill(64 * 1024)
      let error: unknown = null
      try {
        for (let i = 0; i < 2000 && !error; i++) await db.query("insert into t select repeat('x', 1000) from generate_series(1, 100)")
      } catch (err) {
        error = err
      }
      expect(isDiskFull(error)).toBe(true)
      tmp.unfill()
      await db.query("insert into t values ('y')")
    } finally {
      await db.close().catch(() => {})
      tmp.unmount()
    }
  }, 120_000)
})
