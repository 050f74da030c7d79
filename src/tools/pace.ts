import { sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { rowsOf } from '../db/rows.ts'
import type { Env } from '../env.ts'
import { errorFields, log } from '../lib/logger.ts'

/**
 * The app-wide YouTube gate (docs/decisions/145-youtube-gate.md): every
 * YouTube extraction (music jobs, look-ups, the canary, listening, podcasts)
 * takes a turn here first, through `Toolbox.withYtdlp(fn, {url})`.
 *
 * - Turns start at least YTDLP_SLEEP_SECONDS apart and at most
 *   YTDLP_MAX_PER_HOUR in any 60 minutes. A turn is taken in one transaction
 *   that locks the single `youtube_pace` row (`select … for update`), so two
 *   processes on one PostgreSQL never take the same slot; times come from the
 *   database's clock, so processes on several machines agree.
 * - A caller whose turn is near reserves it (the row moves on, the start is
 *   counted) and sleeps until then; a caller whose turn is further away than
 *   it may wait gets a PaceWait with the time to come back (a job re-delays
 *   itself in the queue; a look-up answers 503 with Retry-After).
 * - A bot check pauses every YouTube extraction for BOT_CHECK_PAUSE_SECONDS
 *   (doubling on each pause that follows another without a success between,
 *   up to 16 × the base and at most 8 hours), kept in the database across
 *   processes and restarts; `onPause` runs once per pause (admins are told).
 */
export type PaceReason = 'turn' | 'hour' | 'pause'

export interface PaceWaitInfo {
  reason: PaceReason
  until: Date
}

/** The caller's turn is further away than it may wait: come back at `until`. */
export class PaceWait extends Error {
  override name = 'PaceWait'
  constructor(
    readonly reason: PaceReason,
    readonly until: Date,
  ) {
    super(reason === 'pause' ? `YouTube extractions are paused until ${until.toISOString()} after a bot check` : `next YouTube turn at ${until.toISOString()}`)
  }
}

export interface PaceTurn {
  /** When the extraction started (its reserved slot). */
  startedAt: Date
}

export interface PaceStatus {
  sleepSeconds: number
  maxPerHour: number
  /** Extractions started in the last 60 minutes. */
  lastHour: number
  pausedUntil: string | null
  pauseCause: string | null
}

export interface PauseStarted {
  until: Date
  cause: string
  /** 1 for the first pause, 2 for one right after it, ... */
  strikes: number
}

/**
 * Whose work a turn is for (docs/decisions/220-fair-youtube-gate.md): `admin` work (the canary, an
 * admin's tool checks) goes first, then what a person started by hand (a music job, a look-up,
 * Listen), then `background` work (podcast episodes, keeping rules). Within a class, people take
 * turns (round robin by `owner`).
 */
export type PaceWork = 'admin' | 'hand' | 'background'

export interface TakeOptions {
  /** The user the turn is for; null: the app itself (the canary). */
  owner?: string | null
  /** Default `hand`. */
  work?: PaceWork
  signal?: AbortSignal
  /** The longest this caller waits for its turn (ms); beyond it, PaceWait. Default: as long as needed. */
  maxWaitMs?: number
  /** Told when the caller starts waiting (with why and until when) and, with null, when its turn came (always). */
  onWait?: (info: PaceWaitInfo | null) => unknown
}

/** Waits shorter than this are not reported through onWait (no row update for a blink). */
const REPORT_WAIT_MS = 1000
/** A waiting caller looks at the gate again at least this often (its ticket's heartbeat). */
const POLL_MS = 1000
/** A ticket not seen for this long belongs to a caller that is gone (a killed process). */
const GONE_AFTER_MS = 20_000
/** The head of the fair order reserves its slot only this close to it. */
const RESERVE_AHEAD_MS = 1000
const RANKS: Record<PaceWork, number> = { admin: 0, hand: 1, background: 2 }

interface Ticket {
  id: string
  owner: string | null
  rank: number
}
const HOUR_MS = 60 * 60 * 1000
const MAX_PAUSE_MS = 8 * HOUR_MS
/** The longest pause is 16 × the base (four doublings: 30 min → 8 h at the default). */
const MAX_DOUBLINGS = 4

type Decision = { granted: true; id: string; at: number; now: number; reason: PaceReason } | { granted: false; until: number; now: number; reason: PaceReason; head: boolean }

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v))

export class YoutubePace {
  /** Runs once per new pause (in the process that started it); errors are logged. */
  onPause: ((pause: PauseStarted) => Promise<void>) | null = null
  private ensured: Promise<void> | null = null

  /** `db` may be given as a function: the server finds its tools while the database opens (src/server.ts). */
  constructor(
    private readonly dbOf: Db | (() => Db),
    private readonly env: Pick<Env, 'YTDLP_SLEEP_SECONDS' | 'YTDLP_MAX_PER_HOUR' | 'BOT_CHECK_PAUSE_SECONDS'>,
  ) {}

  private get db(): Db {
    return typeof this.dbOf === 'function' ? this.dbOf() : this.dbOf
  }

  private ensureRow() {
    this.ensured ??= this.db
      .execute(sql`insert into youtube_pace (id) values (1) on conflict (id) do nothing`)
      .then(() => {})
      .catch((err) => {
        this.ensured = null
        throw err
      })
    return this.ensured
  }

  /**
   * One look at the gate, in one locked transaction: a reserved slot, or when to come back.
   * The caller's ticket (its row in youtube_waiters) is refreshed first; the next slot goes only
   * to the head of the fair order (rank, then the owner served longest ago, then the oldest
   * ticket), and is reserved only once it is near (RESERVE_AHEAD_MS), so that a caller arriving
   * meanwhile with a better claim waits at most the one turn already reserved.
   */
  private async decide(ticket: Ticket, maxWaitMs: number): Promise<Decision> {
    await this.ensureRow()
    const sleepMs = this.env.YTDLP_SLEEP_SECONDS * 1000
    const max = this.env.YTDLP_MAX_PER_HOUR
    return await this.db.transaction(async (tx) => {
      const [row] = rowsOf<{ now: number; last: number | null; paused: number | null }>(
        await tx.execute(sql`
          select (extract(epoch from clock_timestamp()) * 1000)::float8 as now,
                 (extract(epoch from last_start_at) * 1000)::float8 as last,
                 (extract(epoch from paused_until) * 1000)::float8 as paused
          from youtube_pace where id = 1 for update`),
      )
      const now = Number(row!.now)
      const stamp = sql`to_timestamp(${now / 1000})`
      await tx.execute(sql`
        insert into youtube_waiters (id, owner, rank, created_at, seen_at) values (${ticket.id}, ${ticket.owner}, ${ticket.rank}, ${stamp}, ${stamp})
        on conflict (id) do update set seen_at = excluded.seen_at`)
      await tx.execute(sql`delete from youtube_waiters where seen_at < ${stamp} - make_interval(secs => ${GONE_AFTER_MS / 1000})`)
      const paused = num(row!.paused)
      if (paused !== null && paused > now) return { granted: false, until: paused, now, reason: 'pause' as const, head: false }
      const last = num(row!.last)
      const bySleep = last === null ? now : last + sleepMs
      let byHour = now
      if (max > 0) {
        // the max-th latest start in the window: a new start must come an hour after it
        const [nth] = rowsOf<{ at: number }>(
          await tx.execute(sql`
            select (extract(epoch from at) * 1000)::float8 as at from youtube_starts
            where at > to_timestamp(${now / 1000}) - interval '1 hour'
            order by at desc offset ${max - 1} limit 1`),
        )
        if (nth) byHour = Number(nth.at) + HOUR_MS
      }
      const at = Math.max(now, bySleep, byHour)
      const reason: PaceReason = byHour > now && byHour >= bySleep ? 'hour' : 'turn'
      // where this ticket stands in the fair order
      const [place] = rowsOf<{ ahead: number }>(
        await tx.execute(sql`
          with ordered as (
            select w.id, row_number() over (order by w.rank, l.last nulls first, w.created_at, w.id) - 1 as ahead
            from youtube_waiters w
            left join lateral (select max(s.at) as last from youtube_starts s where s.owner is not distinct from w.owner) l on true
          )
          select ahead::int as ahead from ordered where id = ${ticket.id}`),
      )
      const ahead = Number(place?.ahead ?? 0)
      if (ahead > 0) {
        // each caller ahead takes one turn first (an estimate: callers may still come and go)
        const until = at + ahead * Math.max(sleepMs, POLL_MS)
        return { granted: false, until, now, reason, head: false }
      }
      if (at - now > maxWaitMs || at - now > RESERVE_AHEAD_MS) return { granted: false, until: at, now, reason, head: true }
      await tx.execute(sql`update youtube_pace set last_start_at = to_timestamp(${at / 1000}) where id = 1`)
      const [inserted] = rowsOf<{ id: string }>(
        await tx.execute(sql`insert into youtube_starts (at, owner, rank) values (to_timestamp(${at / 1000}), ${ticket.owner}, ${ticket.rank}) returning id`),
      )
      await tx.execute(sql`delete from youtube_waiters where id = ${ticket.id}`)
      await tx.execute(sql`delete from youtube_starts where at < to_timestamp(${now / 1000}) - interval '2 hours'`)
      return { granted: true, id: inserted!.id, at, now, reason }
    })
  }

  /** The caller gave up waiting (PaceWait, abort): its ticket goes at once, not after GONE_AFTER_MS. */
  private async leave(ticket: Ticket) {
    await this.db.execute(sql`delete from youtube_waiters where id = ${ticket.id}`).catch(() => {})
  }

  /**
   * Takes a turn: resolves when the caller may start its extraction (its slot
   * reserved and reached); rejects with PaceWait when the turn (or the pause's
   * end) is further away than `maxWaitMs`, or with the signal's reason.
   */
  async take(opts: TakeOptions = {}): Promise<PaceTurn> {
    const { signal, onWait } = opts
    const maxWaitMs = opts.maxWaitMs ?? Number.POSITIVE_INFINITY
    const ticket: Ticket = { id: crypto.randomUUID(), owner: opts.owner ?? null, rank: RANKS[opts.work ?? 'hand'] }
    let reported: number | null = null
    const report = async (info: PaceWaitInfo | null) => {
      if (!onWait) return
      // one report per wait (not per poll), and again only when its end moves by more than a poll
      const key = info ? Math.round(info.until.getTime() / REPORT_WAIT_MS) : null
      if (info && reported !== null && key !== null && Math.abs(key - reported) <= 1) return
      reported = key
      try {
        await onWait(info)
      } catch (err) {
        log.warn('pace wait report failed', errorFields(err))
      }
    }
    try {
      for (;;) {
        signal?.throwIfAborted()
        const d = await this.decide(ticket, maxWaitMs)
        if (!d.granted) {
          const wait = d.until - d.now
          if (wait > maxWaitMs) throw new PaceWait(d.reason, new Date(d.until))
          if (wait >= REPORT_WAIT_MS) await report({ reason: d.reason, until: new Date(d.until) })
          // look again within a poll (the ticket stays alive, a better claim may come or go)
          await sleep(Math.min(Math.max(wait - (d.head ? RESERVE_AHEAD_MS / 2 : 0), 0), POLL_MS), signal)
          continue
        }
        const wait = d.at - d.now
        if (wait > 0) {
          try {
            await sleep(wait, signal)
          } catch (err) {
            await this.release(d.id)
            throw err
          }
          // a bot check met meanwhile pauses this reserved turn too
          if (await this.pausedNow()) {
            await this.release(d.id)
            continue
          }
        }
        // told even when this call did not wait: an earlier run of the same job may have (a job row says so)
        reported = null
        await report(null)
        return { startedAt: new Date(d.at) }
      }
    } finally {
      await this.leave(ticket)
    }
  }

  /** A reserved turn not used (its caller gave up): it no longer counts towards the hour. */
  private async release(id: string) {
    await this.db.execute(sql`delete from youtube_starts where id = ${id}`).catch(() => {})
  }

  private async pausedNow(): Promise<boolean> {
    const [row] = rowsOf<{ paused: boolean }>(await this.db.execute(sql`select coalesce(paused_until > clock_timestamp(), false) as paused from youtube_pace where id = 1`))
    return !!row?.paused
  }

  /**
   * An extraction met a bot check: pauses every YouTube extraction, unless a
   * pause is already on (the same wave of checks). Returns the new pause, or null.
   */
  async noteBotCheck(cause: string): Promise<PauseStarted | null> {
    const base = this.env.BOT_CHECK_PAUSE_SECONDS * 1000
    if (!base) return null
    await this.ensureRow()
    const started = await this.db.transaction(async (tx) => {
      const [row] = rowsOf<{ now: number; paused: number | null; strikes: number }>(
        await tx.execute(sql`
          select (extract(epoch from clock_timestamp()) * 1000)::float8 as now,
                 (extract(epoch from paused_until) * 1000)::float8 as paused, strikes
          from youtube_pace where id = 1 for update`),
      )
      const now = Number(row!.now)
      const paused = num(row!.paused)
      if (paused !== null && paused > now) return null
      const strikes = Number(row!.strikes)
      const ms = Math.min(base * 2 ** Math.min(strikes, MAX_DOUBLINGS), MAX_PAUSE_MS)
      const until = now + ms
      await tx.execute(sql`
        update youtube_pace set paused_until = to_timestamp(${until / 1000}), paused_at = to_timestamp(${now / 1000}),
          pause_cause = ${cause}, strikes = ${strikes + 1}
        where id = 1`)
      return { until: new Date(until), cause, strikes: strikes + 1 }
    })
    if (started) {
      log.warn('youtube paused after a bot check', { until: started.until.toISOString(), strikes: started.strikes, cause })
      try {
        await this.onPause?.(started)
      } catch (err) {
        log.warn('pause notification failed', errorFields(err))
      }
    }
    return started
  }

  /** An extraction that started after the last pause ended went through: the next pause starts from the base again. */
  async noteSuccess(turn: PaceTurn) {
    await this.db.execute(sql`
      update youtube_pace set strikes = 0
      where id = 1 and strikes > 0 and (paused_until is null or paused_until <= to_timestamp(${turn.startedAt.getTime() / 1000}))`)
  }

  /** `youtube.pace` of GET /api/admin/status. */
  async status(): Promise<PaceStatus> {
    const [row] = rowsOf<{ paused: Date | string | null; cause: string | null; hour: number | string }>(
      await this.db.execute(sql`
        select case when p.paused_until > clock_timestamp() then p.paused_until end as paused,
               case when p.paused_until > clock_timestamp() then p.pause_cause end as cause,
               (select count(*)::int from youtube_starts s where s.at > clock_timestamp() - interval '1 hour' and s.at <= clock_timestamp()) as hour
        from (select 1) one left join youtube_pace p on p.id = 1`),
    )
    return {
      sleepSeconds: this.env.YTDLP_SLEEP_SECONDS,
      maxPerHour: this.env.YTDLP_MAX_PER_HOUR,
      lastHour: Number(row?.hour ?? 0),
      pausedUntil: row?.paused ? new Date(row.paused).toISOString() : null,
      pauseCause: row?.cause ?? null,
    }
  }
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(done, Math.max(0, ms))
    function done() {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }
    function onAbort() {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** Sites that throttle or bot-check bursts: YouTube (and its media hosts). Only these are paced. */
export function isPacedSite(url: string): boolean {
  const host = URL.parse(url)?.hostname.toLowerCase() ?? ''
  return /(^|\.)(youtube\.com|youtu\.be|youtube-nocookie\.com|googlevideo\.com)$/.test(host)
}
