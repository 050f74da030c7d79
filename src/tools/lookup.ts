import type { AppContext } from '../context.ts'
import { fail } from '../lib/errors.ts'
import { PaceWait } from './pace.ts'
import type { YtdlpConfig } from './ytdlp.ts'

/**
 * Request-time look-ups (/grouping, /lookup, /artwork): at most
 * LOOKUP_CONCURRENCY at once in the app and LOOKUP_CONCURRENCY_PER_USER per
 * user; the others wait their turn. Each gives up (killing its yt-dlp, or its fetch) when
 * the client goes away or after LOOKUP_TIMEOUT_SECONDS, which stays below the
 * server's idle timeout so the client gets an answer rather than a cut.
 */
class Slots {
  private used = 0
  private readonly waiting: (() => void)[] = []
  constructor(private readonly size: number) {}

  async take(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted()
    if (this.used < this.size) {
      this.used++
      return
    }
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal.removeEventListener('abort', onAbort)
        resolve()
      }
      const onAbort = () => {
        this.waiting.splice(this.waiting.indexOf(wake), 1)
        reject(signal.reason)
      }
      this.waiting.push(wake)
      signal.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** Hands the slot to the next waiter, or frees it. */
  give() {
    const next = this.waiting.shift()
    if (next) next()
    else this.used--
  }

  get idle() {
    return this.used === 0 && this.waiting.length === 0
  }
}

const globalSlots = new WeakMap<AppContext, Slots>()
const userSlots = new WeakMap<AppContext, Map<string, Slots>>()

/**
 * The longest a look-up waits for its YouTube turn: 20 s, and never more than half its own time
 * limit, so the extraction itself still has time (docs/decisions/146-waiting-jobs-and-lookups.md).
 */
export const lookupWaitMs = (ctx: Pick<AppContext, 'env'>) => Math.min(20_000, (ctx.env.LOOKUP_TIMEOUT_SECONDS * 1000) / 2)

/**
 * A yt-dlp look-up: `fn` gets the configuration and the look-up's signal. A YouTube link waits
 * its turn at the app-wide gate (src/tools/pace.ts) for up to lookupWaitMs; a turn further away
 * rejects with PaceWait (see `answerPaceWait`).
 */
export function runLookup<T>(
  ctx: AppContext,
  userId: string,
  clientSignal: AbortSignal,
  fn: (cfg: YtdlpConfig, signal: AbortSignal) => Promise<T>,
  opts: { url?: string } = {},
): Promise<T> {
  return limitLookup(ctx, userId, clientSignal, (signal) =>
    ctx.tools.withYtdlp((cfg) => fn(cfg, signal), { url: opts.url, signal, maxWaitMs: lookupWaitMs(ctx), owner: userId, work: 'hand' }),
  )
}

/**
 * A look-up that waited lookupWaitMs for one of the look-up slots (the app's or the user's)
 * and got none: the server is busy, which says nothing about the link (issue 37, minor 7).
 */
export class LookupBusy extends Error {
  override name = 'LookupBusy'
}

/** Seconds a look-up turned away for want of a slot is told to wait: about one look-up's time. */
export const BUSY_RETRY_SECONDS = 5

/**
 * A look-up that could not get its turn in time: 503 with Retry-After (seconds until the YouTube
 * turn or the pause's end; a few seconds when the look-up slots were all taken).
 */
export function answerPaceWait(err: unknown): void {
  if (err instanceof LookupBusy)
    fail(503, `The server is busy with other look-ups. Try again in ${BUSY_RETRY_SECONDS} seconds.`, { 'Retry-After': String(BUSY_RETRY_SECONDS) })
  if (!(err instanceof PaceWait)) return
  const seconds = Math.max(1, Math.ceil((err.until.getTime() - Date.now()) / 1000))
  const detail =
    err.reason === 'pause'
      ? `YouTube asked this server to confirm it is not a bot, so YouTube links are paused until ${err.until.toISOString()}. Try again then.`
      : `The server is busy with other YouTube links. Try again in ${seconds} seconds.`
  fail(503, detail, { 'Retry-After': String(seconds) })
}

/** Any look-up (a page fetch for /artwork): the same limits, signal and timeout. */
export async function limitLookup<T>(ctx: AppContext, userId: string, clientSignal: AbortSignal, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const { env } = ctx
  const signal = AbortSignal.any([clientSignal, AbortSignal.timeout(env.LOOKUP_TIMEOUT_SECONDS * 1000)])
  let all = globalSlots.get(ctx)
  if (!all) globalSlots.set(ctx, (all = new Slots(env.LOOKUP_CONCURRENCY)))
  let users = userSlots.get(ctx)
  if (!users) userSlots.set(ctx, (users = new Map()))
  let mine = users.get(userId)
  if (!mine) users.set(userId, (mine = new Slots(env.LOOKUP_CONCURRENCY_PER_USER)))

  // waiting for a slot is bounded as the YouTube turn is: the look-up itself keeps the other half
  const turn = AbortSignal.any([signal, AbortSignal.timeout(lookupWaitMs(ctx))])
  const take = async (slots: Slots) => {
    try {
      await slots.take(turn)
    } catch (err) {
      if (!clientSignal.aborted) throw new LookupBusy('no look-up slot within its wait')
      throw err
    }
  }
  // the user's own turn first, so one user's burst cannot hold the global slots while waiting
  await take(mine)
  try {
    await take(all)
    try {
      return await fn(signal)
    } finally {
      all.give()
    }
  } finally {
    mine.give()
    if (mine.idle) users.delete(userId)
  }
}
