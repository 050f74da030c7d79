import type { Env } from '../env.ts'
import { fail } from '../lib/errors.ts'
import { guardedFetch } from '../lib/guarded-fetch.ts'
import type { AllowList } from '../lib/url-guard.ts'
import pkg from '../../package.json' with { type: 'json' }
import type { Candidate } from './schema.ts'

/**
 * MusicBrainz recording search and Cover Art Archive front covers for
 * GET /musicbrainz. MusicBrainz asks for at most one request per second per
 * application and a User-Agent naming the application and a contact
 * (https://musicbrainz.org/doc/MusicBrainz_API/Rate_Limiting): every call
 * goes through one process-wide queue (FairRateQueue) that sends one request
 * at a time, a second after the previous one was answered, and serves the
 * waiting users in turn (decision 163); callers wait their turn (their
 * request stays open), they do not sleep. Answers are cached briefly per
 * (artist, title).
 */
const MAX_CANDIDATES = 5
const TIMEOUT_MS = 15_000
/** Searches waiting or running at once: per user, and in all. */
export const MAX_WAITING_PER_USER = 5
const MAX_WAITING = 50
const CACHE_MS = 10 * 60_000

/** Thrown by FairRateQueue.run when the user's or the whole queue is full. */
export class QueueFull extends Error {
  constructor(readonly scope: 'user' | 'all') {
    super(`queue full (${scope})`)
  }
}

interface Waiter {
  /** Runs the task, settling the caller's promise; resolves once the task settled. */
  run(): Promise<void>
  /** Order of arrival (ties between users served as long ago). */
  seq: number
}

/**
 * Runs one task at a time, each starting at least `intervalMs` after the
 * previous one ended (so the service sees requests at least that far apart,
 * however late the previous one reached it). The next task is the waiting
 * one of the user served least recently: one user's burst waits behind
 * everyone else's searches, never in front of them.
 */
export class FairRateQueue {
  private waiting = new Map<string, Waiter[]>()
  /** When each user was last served (performance.now()); forgotten a minute later. */
  private served = new Map<string, number>()
  private running: string | null = null
  private busy = false
  private lastEnd = Number.NEGATIVE_INFINITY
  private seq = 0

  constructor(
    private intervalMs: number,
    private perUser = MAX_WAITING_PER_USER,
    private overall = MAX_WAITING,
  ) {}

  /** Tasks waiting or running, of one user or in all. */
  size(userId?: string): number {
    if (userId !== undefined) return (this.waiting.get(userId)?.length ?? 0) + (this.running === userId ? 1 : 0)
    let n = this.running !== null ? 1 : 0
    for (const list of this.waiting.values()) n += list.length
    return n
  }

  /** Runs `task` in the user's turn; rejects at once with QueueFull, or with the signal's reason when it aborts while waiting. */
  run<T>(userId: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.size(userId) >= this.perUser) return Promise.reject(new QueueFull('user'))
    if (this.size() >= this.overall) return Promise.reject(new QueueFull('all'))
    if (signal?.aborted) return Promise.reject(signal.reason)
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        const list = this.waiting.get(userId)
        const at = list?.indexOf(waiter) ?? -1
        if (at < 0) return
        list!.splice(at, 1)
        if (list!.length === 0) this.waiting.delete(userId)
        reject(signal!.reason)
      }
      const waiter: Waiter = {
        seq: this.seq++,
        run: () => {
          signal?.removeEventListener('abort', onAbort)
          return task().then(resolve, reject)
        },
      }
      const list = this.waiting.get(userId) ?? []
      list.push(waiter)
      this.waiting.set(userId, list)
      signal?.addEventListener('abort', onAbort, { once: true })
      void this.pump()
    })
  }

  /** The user to serve next: the least recently served, then the one waiting longest. */
  private next(): string | null {
    let best: string | null = null
    let bestServed = Number.POSITIVE_INFINITY
    let bestSeq = Number.POSITIVE_INFINITY
    for (const [user, list] of this.waiting) {
      const served = this.served.get(user) ?? Number.NEGATIVE_INFINITY
      const seq = list[0]!.seq
      if (served < bestServed || (served === bestServed && seq < bestSeq)) [best, bestServed, bestSeq] = [user, served, seq]
    }
    return best
  }

  private async pump() {
    if (this.busy) return
    this.busy = true
    try {
      for (;;) {
        const wait = this.lastEnd + this.intervalMs - performance.now()
        if (wait > 0) await Bun.sleep(wait)
        const user = this.next()
        if (user === null) return
        const list = this.waiting.get(user)!
        const waiter = list.shift()!
        if (list.length === 0) this.waiting.delete(user)
        const now = performance.now()
        for (const [u, at] of this.served) if (now - at > 60_000) this.served.delete(u)
        this.served.set(user, now)
        this.running = user
        try {
          await waiter.run()
        } finally {
          this.running = null
          this.lastEnd = performance.now()
        }
      }
    } finally {
      this.busy = false
    }
  }
}

type Json = Record<string, unknown>
const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null)
const yearOf = (date: unknown) => {
  const s = str(date)
  return s && /^\d{4}/.test(s) ? Number(s.slice(0, 4)) : null
}
const positiveInt = (v: unknown) => {
  const n = typeof v === 'string' ? Number.parseInt(v, 10) : v
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : null
}

/** Lucene phrase for the search syntax: quotes and backslashes escaped. */
const phrase = (s: string) => `"${s.replace(/[\\"]/g, '\\$&')}"`

/** The release a user most likely means: official albums first, then the earliest. */
function bestRelease(releases: Json[]): Json | null {
  const rank = (r: Json) => {
    const group = (r['release-group'] ?? {}) as Json
    return (r.status === 'Official' ? 0 : 2) + (group['primary-type'] === 'Album' ? 0 : 1)
  }
  return (
    [...releases].sort((a, b) => rank(a) - rank(b) || String(a.date ?? '9999').localeCompare(String(b.date ?? '9999')))[0] ?? null
  )
}

/** Candidates from a `/ws/2/recording?fmt=json` answer, in MusicBrainz's score order (cover not yet known). */
export function candidatesFrom(body: Json): Candidate[] {
  const recordings = Array.isArray(body.recordings) ? (body.recordings as Json[]) : []
  return recordings.slice(0, MAX_CANDIDATES).map((rec) => {
    const credit = Array.isArray(rec['artist-credit']) ? (rec['artist-credit'] as Json[]) : []
    const artist = credit.map((c) => `${str(c.name) ?? str((c.artist as Json)?.name) ?? ''}${c.joinphrase ?? ''}`).join('').trim()
    const release = bestRelease(Array.isArray(rec.releases) ? (rec.releases as Json[]) : [])
    const medium = ((release?.media as Json[] | undefined) ?? [])[0]
    const track = ((medium?.track as Json[] | undefined) ?? [])[0]
    const offset = typeof medium?.['track-offset'] === 'number' ? medium['track-offset'] : null
    return {
      title: str(rec.title) ?? '',
      artist,
      album: str(release?.title),
      year: yearOf(release?.date) ?? yearOf(rec['first-release-date']),
      trackNumber: positiveInt(track?.number) ?? (offset !== null ? offset + 1 : null),
      trackCount: positiveInt(medium?.['track-count']) ?? positiveInt(release?.['track-count']),
      coverUrl: null,
      recordingId: String(rec.id),
      releaseId: str(release?.id),
    }
  })
}

/** The front cover's 500 px thumbnail from the Cover Art Archive's JSON; null when there is none. */
export function frontCoverFrom(body: Json): string | null {
  const images = Array.isArray(body.images) ? (body.images as Json[]) : []
  const front = images.find((i) => i.front === true) ?? images.find((i) => Array.isArray(i.types) && i.types.includes('Front'))
  if (!front) return null
  const thumbs = (front.thumbnails ?? {}) as Json
  return str(thumbs['500']) ?? str(thumbs.large) ?? str(front.image)
}

export class MusicBrainz {
  private queue = new FairRateQueue(1000)
  private cache = new Map<string, { at: number; value: Candidate[] }>()
  private userAgent: string

  constructor(
    private env: Pick<Env, 'MUSICBRAINZ_URL' | 'COVERART_URL' | 'PUBLIC_URL' | 'MAIL_FROM'>,
    private allow: AllowList,
  ) {
    const contact = env.PUBLIC_URL ?? /<([^>]+)>/.exec(env.MAIL_FROM)?.[1] ?? env.MAIL_FROM
    this.userAgent = `Tunefeed/${pkg.version} ( ${contact} )`
  }

  /** Up to 5 recordings for artist and title, best first; 400 `Unable to reach MusicBrainz.` on any failure. */
  async search(userId: string, artist: string, title: string, signal: AbortSignal): Promise<Candidate[]> {
    const key = `${artist.toLowerCase()}\n${title.toLowerCase()}`
    const hit = this.cache.get(key)
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.value
    let candidates: Candidate[]
    try {
      const query = [title && `recording:${phrase(title)}`, artist && `artist:${phrase(artist)}`].filter(Boolean).join(' AND ')
      const url = new URL('ws/2/recording', withSlash(this.env.MUSICBRAINZ_URL))
      url.search = new URLSearchParams({ query, fmt: 'json', limit: String(MAX_CANDIDATES) }).toString()
      const body = await this.queue.run(
        userId,
        () => {
          signal.throwIfAborted()
          return this.getJson(url, signal)
        },
        signal,
      )
      candidates = candidatesFrom(body ?? {})
    } catch (err) {
      if (err instanceof QueueFull && err.scope === 'user')
        fail(429, `You have ${MAX_WAITING_PER_USER} MusicBrainz searches waiting: wait for them to finish, then try again.`, { 'retry-after': '5' })
      if (err instanceof QueueFull) fail(429, 'Too many lookups at once.', { 'retry-after': '5' })
      fail(400, 'Unable to reach MusicBrainz.')
    }
    // the archive is a separate service without MusicBrainz's rate limit
    await Promise.all(
      candidates.map(async (c) => {
        if (!c.releaseId) return
        const cover = await this.getJson(new URL(`release/${c.releaseId}`, withSlash(this.env.COVERART_URL)), signal).catch(() => null)
        c.coverUrl = cover ? frontCoverFrom(cover) : null
      }),
    )
    if (this.cache.size > 500) this.cache.delete(this.cache.keys().next().value!)
    this.cache.set(key, { at: Date.now(), value: candidates })
    return candidates
  }

  /** GET as JSON through the URL guard; null for 404 (no such thing), an error for anything else. */
  private async getJson(url: URL, signal: AbortSignal): Promise<Json | null> {
    const res = await guardedFetch(url, {
      allow: this.allow,
      signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]),
      headers: { accept: 'application/json', 'user-agent': this.userAgent },
    })
    if (res.status === 404) {
      await res.body?.cancel()
      return null
    }
    if (!res.ok) {
      await res.body?.cancel()
      throw new Error(`${url.host} answered ${res.status}`)
    }
    return (await res.json()) as Json
  }
}

const withSlash = (base: string) => (base.endsWith('/') ? base : `${base}/`)
