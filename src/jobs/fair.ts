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

/**
 * bunqueue's server takes priorities from -1,000,000 to 1,000,000 only (the embedded queue takes
 * any number): each lane gets half a million places below 0, the background lane under the hand
 * lane. Sequence numbers only grow, so a lane's priority is its sequence less a base that moves
 * up in steps of WINDOW as the lane's virtual time passes it (at a step, jobs queued before it
 * rank a little later than they should: once every quarter-million jobs of that lane). A backlog
 * deeper than the lane's places keeps its order at the lane's last place (FIFO there).
 */
const LANE_PLACES = 500_000
const WINDOW = 250_000

const baseOf = (vtime: number) => Math.floor(vtime / WINDOW) * WINDOW
const place = (seq: number, vtime: number) => Math.min(Math.max(seq - baseOf(vtime), 0), LANE_PLACES - 1)

export interface FairClaim {
  lane: FairLane
  /** The user the work is for. */
  owner: string
}

/** The queue priority for a new job of `owner` in `lane` (and the owner's sequence moves on). */
export async function fairPriority(db: Tx, { lane, owner }: FairClaim): Promise<number> {
  const [row] = rowsOf<{ seq: number | string; vtime: number | string }>(
    await db.execute(sql`
      with v as (select coalesce((select vtime from job_fair_lanes where lane = ${lane}), 0) as vtime)
      insert into job_fair_owners (lane, owner, last_seq)
      select ${lane}, ${owner}, v.vtime from v
      on conflict (lane, owner) do update set last_seq = greatest(job_fair_owners.last_seq + 1, (select vtime from v))
      returning last_seq as seq, (select vtime from v) as vtime`),
  )
  const at = place(Number(row!.seq), Number(row!.vtime))
  return lane === 'hand' ? -at : -(LANE_PLACES + at)
}

/**
 * The sequence number of a started job's place: the lane's base now, or the one before it when
 * the job was queued before the last step, whichever is nearer the lane's time (jobs start close
 * to it).
 */
export function seqOfPlace(at: number, vtime: number): number {
  const now = baseOf(vtime) + at
  const before = now - WINDOW
  return before >= 0 && Math.abs(before - vtime) < Math.abs(now - vtime) ? before : now
}

/** A job with a fair priority started: its lane's virtual time moves up to its number. */
export async function fairStarted(db: Tx, priority: number): Promise<void> {
  if (!(priority < 0)) return
  const lane: FairLane = -priority >= LANE_PLACES ? 'background' : 'hand'
  const at = lane === 'hand' ? -priority : -priority - LANE_PLACES
  const [row] = rowsOf<{ vtime: number | string }>(await db.execute(sql`select vtime from job_fair_lanes where lane = ${lane}`))
  const seq = seqOfPlace(at, Number(row?.vtime ?? 0))
  await db.execute(sql`
    insert into job_fair_lanes (lane, vtime) values (${lane}, ${seq})
    on conflict (lane) do update set vtime = greatest(job_fair_lanes.vtime, excluded.vtime)`)
}
