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
 * goes through one process-wide queue that starts a request at most once a
 * second; callers wait their turn (their request stays open), they do not
 * sleep. Answers are cached briefly per (artist, title).
 */
const MAX_CANDIDATES = 5
const TIMEOUT_MS = 15_000
const MAX_WAITING = 20
const CACHE_MS = 10 * 60_000

/** Starts one task at most every `intervalMs`, in order. */
export class RateQueue {
  private last = Number.NEGATIVE_INFINITY
  private tail: Promise<unknown> = Promise.resolve()
  waiting = 0

  constructor(private intervalMs: number) {}

  run<T>(task: () => Promise<T>): Promise<T> {
    this.waiting++
    const start = this.tail.then(async () => {
      const wait = this.last + this.intervalMs - performance.now()
      if (wait > 0) await Bun.sleep(wait)
      this.last = performance.now()
    })
    this.tail = start
    return start.then(
      () => {
        this.waiting--
        return task()
      },
      () => {
        this.waiting--
        return task()
      },
    )
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
  private queue = new RateQueue(1000)
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
  async search(artist: string, title: string, signal: AbortSignal): Promise<Candidate[]> {
    const key = `${artist.toLowerCase()}\n${title.toLowerCase()}`
    const hit = this.cache.get(key)
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.value
    if (this.queue.waiting >= MAX_WAITING) fail(429, 'Too many lookups at once.', { 'retry-after': '5' })
    let candidates: Candidate[]
    try {
      const query = [title && `recording:${phrase(title)}`, artist && `artist:${phrase(artist)}`].filter(Boolean).join(' AND ')
      const url = new URL('ws/2/recording', withSlash(this.env.MUSICBRAINZ_URL))
      url.search = new URLSearchParams({ query, fmt: 'json', limit: String(MAX_CANDIDATES) }).toString()
      const body = await this.queue.run(() => {
        signal.throwIfAborted()
        return this.getJson(url, signal)
      })
      candidates = candidatesFrom(body ?? {})
    } catch {
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
