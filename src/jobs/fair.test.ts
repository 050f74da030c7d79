import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { createTestDatabase } from '../../tests/support/db.ts'
import type { Database } from '../db/client.ts'
import { rowsOf } from '../db/rows.ts'
import { fairPriority, fairStarted, seqOfPlace } from './fair.ts'

// The fair queue's priorities stay inside what a bunqueue server accepts (-1,000,000 to
// 1,000,000; the embedded queue takes any number, so only this bound catches it), however long
// the lanes have run, and keep their order: hand before background, a newcomer before a backlog.

let database: Database
beforeAll(async () => {
  database = await createTestDatabase()
}, 60_000)
afterAll(() => database?.close())

const vtimeOf = async (lane: string) =>
  Number(rowsOf<{ vtime: string | number }>(await database.db.execute(sql`select vtime from job_fair_lanes where lane = ${lane}`))[0]?.vtime ?? 0)

describe('fair priorities', () => {
  test('after a billion jobs in each lane: inside the server range, hand above background, a newcomer ahead of a backlog', async () => {
    const { db } = database
    const far = 1_000_000_123
    await db.execute(sql`insert into job_fair_lanes (lane, vtime) values ('hand', ${far}), ('background', ${far})`)
    const backlog: number[] = []
    for (let i = 0; i < 5; i++) backlog.push(await fairPriority(db, { lane: 'background', owner: 'a' }))
    const newcomer = await fairPriority(db, { lane: 'background', owner: 'b' })
    const hand = await fairPriority(db, { lane: 'hand', owner: 'c' })
    for (const p of [...backlog, newcomer, hand]) {
      expect(p).toBeGreaterThanOrEqual(-1_000_000)
      expect(p).toBeLessThanOrEqual(1_000_000)
    }
    // higher runs first: the hand job, then a's first and b's first (level: FIFO), then a's backlog
    expect(hand).toBeGreaterThan(Math.max(...backlog, newcomer))
    expect(newcomer).toBeGreaterThan(backlog[1]!)
    expect(backlog).toEqual([...backlog].sort((x, y) => y - x))

    // starting a's third job moves the lane's time to its number, no further
    await fairStarted(db, backlog[2]!)
    expect(await vtimeOf('background')).toBe(far + 2)
    await fairStarted(db, backlog[0]!)
    expect(await vtimeOf('background')).toBe(far + 2)
  })

  test('a place maps back to its sequence across a step of the base', () => {
    // queued at time 249,990 with sequence 249,995 (place 249,995); the base stepped to 250,000 before it started
    expect(seqOfPlace(249_995, 250_003)).toBe(249_995)
    expect(seqOfPlace(5, 250_003)).toBe(250_005)
    expect(seqOfPlace(7, 3)).toBe(7)
  })
})
