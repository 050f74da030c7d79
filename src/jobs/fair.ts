import { sql } from 'drizzle-orm'
import type { Tx } from '../db/client.ts'
import { rowsOf } from '../db/rows.ts'

/**
 * Fair order of YouTube work in the job queue (docs/decisions/220-fair-youtube-gate.md): one
 * person's hundred queued fetches must not stand in front of another person's first one.
 *
 * Start-time fair queuing over bunqueue's priorities (higher runs first, FIFO within one): each
 * lane keeps a virtual time (the highest sequence number started so far) and each owner the last
 * number it was given; a new job gets max(virtual time, owner's last + 1), so a newcomer lands at
 * the front of the lane, a backlog spreads out behind it, and owners alternate. Work a person
 * started by hand (`hand`) runs before background work (podcast episodes, keeping rules); jobs
 * that are not YouTube work keep priority 0 (ahead of background, level with the first hand job).
 */
export type FairLane = 'hand' | 'background'

/** The background lane sits below every hand job (sequence numbers never come near it). */
const BACKGROUND_BASE = 1e12

export interface FairClaim {
  lane: FairLane
  /** The user the work is for. */
  owner: string
}

/** The queue priority for a new job of `owner` in `lane` (and the owner's sequence moves on). */
export async function fairPriority(db: Tx, { lane, owner }: FairClaim): Promise<number> {
  const [row] = rowsOf<{ seq: number | string }>(
    await db.execute(sql`
      with v as (select coalesce((select vtime from job_fair_lanes where lane = ${lane}), 0) as vtime)
      insert into job_fair_owners (lane, owner, last_seq)
      select ${lane}, ${owner}, v.vtime from v
      on conflict (lane, owner) do update set last_seq = greatest(job_fair_owners.last_seq + 1, (select vtime from v))
      returning last_seq as seq`),
  )
  const seq = Number(row!.seq)
  return lane === 'hand' ? -seq : -(BACKGROUND_BASE + seq)
}

/** A job with a fair priority started: its lane's virtual time moves up to its number. */
export async function fairStarted(db: Tx, priority: number): Promise<void> {
  if (!(priority < 0)) return
  const lane: FairLane = -priority >= BACKGROUND_BASE ? 'background' : 'hand'
  const seq = lane === 'hand' ? -priority : -priority - BACKGROUND_BASE
  await db.execute(sql`
    insert into job_fair_lanes (lane, vtime) values (${lane}, ${seq})
    on conflict (lane) do update set vtime = greatest(job_fair_lanes.vtime, excluded.vtime)`)
}
