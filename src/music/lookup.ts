import { fail } from '../lib/errors.ts'
import { type ErrorKind, ToolFailure } from '../tools/failure.ts'
import { chaptersOf } from './chapters.ts'
import { ERROR_KIND_HEADER, type Lookup } from './schema.ts'
import { artistFromChannel, parseUploadTitle } from './title-parse.ts'
import type { AppContext } from '../context.ts'
import { runLookup } from '../tools/lookup.ts'
import { groupingOf, MAX_PLAYLIST_ENTRIES, videoInfo } from '../tools/ytdlp.ts'

type Info = Record<string, unknown>
const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null)
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null)
const posInt = (v: unknown) => {
  const n = typeof v === 'string' ? Number(v) : v
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : null
}

function yearOf(info: Info): number | null {
  const year = posInt(info.release_year)
  if (year) return year
  const date = str(info.release_date)
  return date && /^\d{4}/.test(date) ? Number(date.slice(0, 4)) : null
}

/**
 * Suggestions from one yt-dlp `-J` answer: the site's own track/artist/album
 * and release year where given (YouTube Music), else the title parsed the
 * way people title uploads, the artist falling back to the channel.
 */
export function lookupFromInfo(info: Info): Lookup {
  if (info._type === 'playlist') {
    const entries = (Array.isArray(info.entries) ? (info.entries as Info[]) : [])
      .map((e) => ({ url: str(e.webpage_url) ?? str(e.url), title: str(e.title), duration: num(e.duration) }))
      .filter((e): e is { url: string; title: string | null; duration: number | null } => !!e.url)
      .slice(0, MAX_PLAYLIST_ENTRIES)
    const title = str(info.title)
    return {
      title: null,
      artist: artistFromChannel(str(info.uploader) ?? str(info.channel)),
      album: title,
      grouping: groupingOf(info),
      artworkUrl: thumbnailOf(info),
      trackNumber: null,
      year: null,
      duration: null,
      chapters: [],
      playlist: { title, count: entries.length, entries },
    }
  }
  const track = str(info.track)
  // the generic extractor numbers what it finds on a page: "Name (1)"
  const title = (str(info.title) ?? '').replace(info.extractor_key === 'Generic' ? /\s\(\d+\)$/ : /$^/, '')
  const parsed = parseUploadTitle(title)
  const siteArtist = str(info.artist) ?? str(info.creator)
  const chapters = chaptersOf(info)
  return {
    title: track ?? (parsed.title || null),
    artist: (track && siteArtist) || parsed.artist || siteArtist || artistFromChannel(str(info.uploader) ?? str(info.channel)),
    // a video split into chapters is an album: its title names it
    album: str(info.album) ?? (chapters.length >= 2 ? parsed.title || null : null),
    grouping: groupingOf(info),
    artworkUrl: thumbnailOf(info),
    trackNumber: posInt(info.track_number),
    year: yearOf(info),
    duration: num(info.duration),
    chapters,
    playlist: null,
  }
}

/** The largest thumbnail (yt-dlp lists them worst first), else `thumbnail`. */
function thumbnailOf(info: Info): string | null {
  const list = Array.isArray(info.thumbnails) ? (info.thumbnails as Info[]) : []
  const best = [...list].reverse().find((t) => str(t.url)?.startsWith('http'))
  return str(best?.url) ?? str(info.thumbnail)
}

const CACHE_MS = 10 * 60_000
const CACHE_MAX = 500

/**
 * GET /lookup's work: one yt-dlp call per link under the look-up limits
 * (src/tools/lookup.ts: per user and overall, abandoned when the client
 * goes away), its answer cached briefly since a form asks again as the
 * user edits.
 */
export class LookupService {
  private cache = new Map<string, { at: number; value: Lookup }>()

  constructor(private ctx: AppContext) {}

  async lookup(userId: string, url: string, clientGone: AbortSignal): Promise<Lookup> {
    const hit = this.cache.get(url)
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.value
    let value: Lookup
    try {
      const info = await runLookup(this.ctx, userId, clientGone, (cfg, signal) => videoInfo(cfg, url, signal, { playlist: true }), { url })
      value = lookupFromInfo(info)
    } catch (err) {
      // the fixed `{detail}`; why, as a kind in a header, for the form's "Nothing could be read at this link: …"
      const kind: ErrorKind = err instanceof ToolFailure ? err.kind : clientGone.aborted ? 'internal' : 'timeout'
      fail(400, 'Unable to get video info.', { [ERROR_KIND_HEADER]: kind })
    }
    if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!)
    this.cache.set(url, { at: Date.now(), value })
    return value
  }
}
