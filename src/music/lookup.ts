import { fail } from '../lib/errors.ts'
import { type ErrorKind, ownSentence, ToolFailure } from '../tools/failure.ts'
import { chaptersOf } from '../tools/chapters.ts'
import { guardedFetch } from '../lib/guarded-fetch.ts'
import type { AllowList } from '../lib/url-guard.ts'
import { ERROR_KIND_HEADER, ERROR_REASON_HEADER, type Lookup, type MusicTags } from './schema.ts'
import { readTagsFromBuffer } from './tags.ts'
import { artistFromChannel, parseUploadTitle } from './title-parse.ts'
import type { AppContext, SessionUser } from '../context.ts'
import { isPrivateListInfo, PRIVATE_LIST_REFUSAL } from '../tools/private-lists.ts'
import { answerPaceWait, runLookup } from '../tools/lookup.ts'
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
    const page = str(info.webpage_url)
    const entries = (Array.isArray(info.entries) ? (info.entries as Info[]) : [])
      // a page with several <audio>/<video> gives entries whose webpage_url is the page itself:
      // each keeps its own media URL, or every job of the playlist would fetch the page's first
      .map((e) => ({ url: entryUrl(e, page), title: pageTitle(e), duration: num(e.duration) }))
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
  const title = pageTitle(info) ?? ''
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

// the extractors that read a plain page (`<video>`/`<audio>` found on it, a direct file)
const PAGE_EXTRACTORS = new Set(['Generic', 'HTML5MediaEmbed'])

/** The title, without the " (1)" yt-dlp appends to what it finds on a plain page. */
function pageTitle(info: Info): string | null {
  const title = str(info.title)
  return title && PAGE_EXTRACTORS.has(String(info.extractor_key)) ? title.replace(/\s\(\d+\)$/, '') : title
}

/** A playlist entry's own link: its page, unless that is the playlist's page (then its media URL). */
function entryUrl(e: Info, page: string | null): string | null {
  const own = str(e.webpage_url)
  const media = str(e.url)
  return own && own !== page ? own : (media ?? own)
}

/** The largest thumbnail (yt-dlp lists them worst first), else `thumbnail`. */
function thumbnailOf(info: Info): string | null {
  const list = Array.isArray(info.thumbnails) ? (info.thumbnails as Info[]) : []
  const best = [...list].reverse().find((t) => str(t.url)?.startsWith('http'))
  return str(best?.url) ?? str(info.thumbnail)
}

/** How much of a direct file is read for its tags (an ID3v2 tag sits at the start; RIFF INFO usually too). */
const TAG_BYTES = 512 * 1024

/** The tags at the start of a direct audio file's link, or null (no tags, not readable, refused). */
async function remoteTags(url: string, allow: AllowList, signal: AbortSignal): Promise<MusicTags | null> {
  try {
    const res = await guardedFetch(url, { allow, headers: { range: `bytes=0-${TAG_BYTES - 1}` }, signal: AbortSignal.any([signal, AbortSignal.timeout(10_000)]) })
    if (!res.ok || !res.body) return null
    const chunks: Uint8Array[] = []
    let size = 0
    const reader = res.body.getReader()
    while (size < TAG_BYTES) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      size += value.length
    }
    await reader.cancel().catch(() => {})
    return await readTagsFromBuffer(Buffer.concat(chunks), res.headers.get('content-type') ?? undefined)
  } catch {
    return null
  }
}

/** A direct file's own tags win over what yt-dlp made of its name. */
function withFileTags(found: Lookup, tags: MusicTags | null): Lookup {
  if (!tags) return found
  return {
    ...found,
    title: tags.title ?? found.title,
    artist: tags.artist ?? found.artist,
    album: tags.album ?? found.album,
    grouping: tags.grouping ?? found.grouping,
    year: tags.year ?? found.year,
    trackNumber: tags.trackNumber ?? found.trackNumber,
  }
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

  async lookup(user: Pick<SessionUser, 'id' | 'admin'>, url: string, clientGone: AbortSignal): Promise<Lookup> {
    // an admin's look-up of the cookies' own lists is never kept for the others
    const key = `${user.admin ? 'admin' : 'user'}\n${url}`
    const hit = this.cache.get(key)
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.value
    let value: Lookup
    let refused = false
    try {
      const info = await runLookup(this.ctx, user.id, clientGone, (cfg, signal) => videoInfo(cfg, url, signal, { playlist: true }), { url })
      // a link that led (redirect) to a private list of the cookies' account: shown to an admin only
      refused = !user.admin && isPrivateListInfo(info)
      value = lookupFromInfo(info)
      // a link straight to an audio file: its own tags, not a title made from the file name
      if (info.direct === true) value = withFileTags(value, await remoteTags(url, this.ctx.allow, clientGone))
    } catch (err) {
      answerPaceWait(err)
      // the fixed `{detail}`; why, as a kind in a header, for the form's "Nothing could be read at this link: …"
      const kind: ErrorKind = err instanceof ToolFailure ? err.kind : clientGone.aborted ? 'internal' : 'timeout'
      const own = err instanceof ToolFailure ? ownSentence(err.message) : null
      fail(400, 'Unable to get video info.', { [ERROR_KIND_HEADER]: kind, ...(own ? { [ERROR_REASON_HEADER]: own } : {}) })
    }
    if (refused) fail(403, `video_url: ${PRIVATE_LIST_REFUSAL}`)
    if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!)
    this.cache.set(key, { at: Date.now(), value })
    return value
  }
}
