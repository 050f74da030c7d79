/**
 * A fake YouTube for tests and the offline demo: the Data API v3 endpoints the
 * app uses (channels, playlistItems, videos, subscriptions, videoCategories)
 * with the real parameters, paging tokens, response and error shapes, each
 * channel's Atom feed, and extras the real service does not have: SVG
 * thumbnails, a small VP8/Opus WebM for every video (`/media/<id>.webm`, see
 * docs/decisions/020) and a control API for tests and demos.
 *
 *   bun scripts/fake-youtube.ts --port 4010 [--host 127.0.0.1] [--seed 1] [--api-key KEY] [--quota N] [--no-media]
 *
 * Tests import `startFakeYoutube({ port: 0 })`. Data is generated from a seed,
 * so the same seed and `now` always give the same channels and videos.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { YOUTUBE_CATEGORIES } from '../src/youtube/categories.ts'

export interface FakeChannel {
  id: string
  title: string
  handle: string
  description: string
  publishedAt: Date
  /** Upload ids, newest first. */
  uploads: string[]
  /** Public subscriptions (channel ids); null when private. */
  subscriptions: string[] | null
}

export interface FakeVideo {
  id: string
  channelId: string
  title: string
  description: string
  publishedAt: Date
  categoryId: number
  duration: number
}

export interface FakeYoutubeOptions {
  port?: number
  hostname?: string
  seed?: number
  /** Anchor for generated publish dates (default: start time). */
  now?: Date
  /** When set, every API call must carry `key=<apiKey>`. */
  apiKey?: string
  /** Units after which the API answers 403 quotaExceeded (default: never). */
  quota?: number
  /** How many channels to generate beside the fixed ones (default 54). */
  generatedChannels?: number
  /** Generate and serve the WebM clip (default true). */
  media?: boolean
  /** Where the generated clip is cached. */
  cacheDir?: string
  ffmpegPath?: string
}

/** Length of the served clip; every fake video has this duration. */
export const CLIP_SECONDS = 30
const FEED_ENTRIES = 15
const MAX_RESULTS = 50
const DAY = 24 * 60 * 60 * 1000

/** Fixed channels the tests and the demo can rely on; the rest are generated. */
export const FIXED_CHANNELS = [
  { handle: '@lofi-garden', title: 'Lofi Garden', uploads: 260, category: 10, everyDays: 0.5 },
  { handle: '@retro-motors', title: 'Retro Motors', uploads: 60, category: 2, everyDays: 3 },
  { handle: '@tiny-kitchen', title: 'Tiny Kitchen', uploads: 12, category: 26, everyDays: 7 },
  { handle: '@quiet-channel', title: 'Quiet Channel', uploads: 0, category: 22, everyDays: 1 },
  { handle: '@pixel-arcade', title: 'Pixel Arcade', uploads: 30, category: 20, everyDays: 2 },
  { handle: '@star-lab', title: 'Star Lab', uploads: 25, category: 28, everyDays: 4 },
] as const

/** Viewers' own channels: their public subscriptions feed the sync. */
export const VIEWER_CHANNELS = [
  { handle: '@viewer-alice', title: 'Alice', subscribe: 8 },
  { handle: '@viewer-bob', title: 'Bob', subscribe: 55 },
  { handle: '@viewer-private', title: 'Private Pat', subscribe: null },
  { handle: '@viewer-empty', title: 'Empty Emma', subscribe: 0 },
] as const

const GENERATED_CHANNELS = 54
const WORDS_A = ['Amber', 'Bright', 'Cosmic', 'Daily', 'Electric', 'Folk', 'Golden', 'Hidden', 'Iron', 'Jolly', 'Kind', 'Lunar', 'Mellow', 'Neon', 'Open', 'Paper', 'Quick', 'Rusty', 'Silver', 'Tidy', 'Urban', 'Velvet', 'Wild', 'Young', 'Zen']
const WORDS_B = ['Atlas', 'Bakery', 'Circuit', 'Drums', 'Engine', 'Forest', 'Garage', 'Harbor', 'Island', 'Journal', 'Kitchen', 'Lab', 'Market', 'Notes', 'Orbit', 'Piano', 'Quest', 'Radio', 'Studio', 'Trail', 'Union', 'Valley', 'Workshop', 'Yard', 'Zone']
const TITLE_A = ['How to', 'Why', 'The secret of', 'A week of', 'Building', 'Fixing', 'Exploring', 'Ranking', 'Testing', 'Learning']
const TITLE_B = ['small engines', 'sourdough', 'synth pads', 'night skies', 'old cameras', 'city trains', 'paper boats', 'desert roads', 'tiny houses', 'cheap guitars', 'rainy cafes', 'lost maps']
const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
const ASSIGNABLE = YOUTUBE_CATEGORIES.filter((c) => c.assignable).map((c) => c.id)

function mulberry32(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z')

/** Error bodies exactly as the Data API sends them. */
function apiError(code: number, reason: string, message: string, domain = 'youtube.api') {
  return Response.json({ error: { code, message, errors: [{ message, domain, reason }] } }, { status: code })
}

const ERRORS = {
  quotaExceeded: () =>
    apiError(
      403,
      'quotaExceeded',
      'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
      'youtube.quota',
    ),
  missingKey: () =>
    apiError(403, 'forbidden', 'Method doesn\'t allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.', 'global'),
  badKey: () => apiError(400, 'keyInvalid', 'API key not valid. Please pass a valid API key.', 'global'),
  backend: (status: number) => apiError(status, 'backendError', 'The service is currently unavailable.', 'global'),
  required: (name: string) => apiError(400, 'required', `Required parameter: ${name}`, 'global'),
  invalid: (name: string, value: string) => apiError(400, 'invalidParameter', `Invalid value for parameter ${name}: '${value}'.`, 'global'),
  pageToken: () => apiError(400, 'invalidPageToken', "The request specifies an invalid page token.", 'youtube.parameter'),
  playlistNotFound: () =>
    apiError(404, 'playlistNotFound', "The playlist identified with the request's <code>playlistId</code> parameter cannot be found.", 'youtube.playlistItem'),
  subscriberNotFound: () => apiError(404, 'subscriberNotFound', 'The subscriber identified with the request cannot be found.', 'youtube.subscription'),
  subscriptionForbidden: () =>
    apiError(403, 'subscriptionForbidden', 'The requester is not allowed to access the requested subscriptions.', 'youtube.subscription'),
  notFound: () => apiError(404, 'notFound', 'Not Found', 'global'),
}

export class FakeYoutube {
  readonly channels = new Map<string, FakeChannel>()
  readonly videos = new Map<string, FakeVideo>()
  /** Handle (lower-case, with @) to channel id. */
  readonly handles = new Map<string, string>()
  /** Quota units spent, as the real API would count them (1 per list call answered). */
  units = 0
  /** Calls per endpoint, including refused ones. */
  calls: Record<string, number> = {}
  feedRequests = 0
  /** Units after which calls answer 403 quotaExceeded; null for no limit. */
  quota: number | null
  /** While true, every feed answers 500 (the client must fall back to the API). */
  feedDown = false
  /** Added before every answer (tests use it to look at a refresh in flight). */
  latencyMs = 0
  private failures: number[] = []
  private rand: () => number
  private clock: number
  private server: ReturnType<typeof Bun.serve> | null = null
  private clip: string | null = null

  constructor(private opts: FakeYoutubeOptions = {}) {
    this.rand = mulberry32(opts.seed ?? 1)
    this.clock = (opts.now ?? new Date()).getTime()
    this.quota = opts.quota ?? null
    this.generate()
  }

  // ---- data ---------------------------------------------------------------

  private id(prefix: string, length: number) {
    let s = prefix
    while (s.length < length) s += ID_CHARS[Math.floor(this.rand() * 64)]
    return s
  }

  private pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.rand() * list.length)]!
  }

  private addChannel(handle: string, title: string, ageDays: number): FakeChannel {
    let id = this.id('UC', 24)
    while (this.channels.has(id)) id = this.id('UC', 24)
    const channel: FakeChannel = {
      id,
      title,
      handle: handle.toLowerCase(),
      description: `${title} on the fake YouTube.`,
      publishedAt: new Date(this.clock - ageDays * DAY),
      uploads: [],
      subscriptions: [],
    }
    this.channels.set(id, channel)
    this.handles.set(channel.handle, id)
    return channel
  }

  private makeVideo(channel: FakeChannel, publishedAt: Date, category: number): FakeVideo {
    let id = this.id('', 11)
    while (this.videos.has(id)) id = this.id('', 11)
    const n = channel.uploads.length + 1
    const video: FakeVideo = {
      id,
      channelId: channel.id,
      title: `${this.pick(TITLE_A)} ${this.pick(TITLE_B)} #${n}`,
      description: `Episode ${n} of ${channel.title}.\n\nEverything here is generated by the fake YouTube server.`,
      publishedAt,
      categoryId: this.rand() < 0.8 ? category : this.pick(ASSIGNABLE),
      duration: CLIP_SECONDS,
    }
    this.videos.set(id, video)
    return video
  }

  private fill(channel: FakeChannel, count: number, category: number, everyDays: number) {
    // newest first, the newest within the last `everyDays`, then spaced back in time with jitter
    let at = this.clock - this.rand() * everyDays * DAY
    const videos: FakeVideo[] = []
    for (let i = 0; i < count; i++) {
      videos.push(this.makeVideo(channel, new Date(Math.floor(at / 1000) * 1000), category))
      at -= everyDays * DAY * (0.5 + this.rand())
    }
    channel.uploads = videos.map((v) => v.id)
  }

  private generate() {
    const content: FakeChannel[] = []
    for (const f of FIXED_CHANNELS) {
      const ch = this.addChannel(f.handle, f.title, 2000)
      this.fill(ch, f.uploads, f.category, f.everyDays)
      content.push(ch)
    }
    for (let i = 0; i < (this.opts.generatedChannels ?? GENERATED_CHANNELS); i++) {
      const a = WORDS_A[i % WORDS_A.length]!
      const b = WORDS_B[(i * 7 + 3) % WORDS_B.length]!
      const ch = this.addChannel(`@${a}-${b}-${i}`.toLowerCase(), `${a} ${b}`, 500 + i * 13)
      this.fill(ch, Math.floor(this.rand() * 40), this.pick(ASSIGNABLE), 1 + this.rand() * 10)
      content.push(ch)
    }
    for (const v of VIEWER_CHANNELS) {
      const ch = this.addChannel(v.handle, v.title, 900)
      ch.subscriptions = v.subscribe === null ? null : content.slice(0, v.subscribe).map((c) => c.id)
    }
  }

  /** The channel with this handle (with or without @); throws if unknown. */
  channel(handle: string): FakeChannel {
    const id = this.handles.get((handle.startsWith('@') ? handle : `@${handle}`).toLowerCase())
    if (!id) throw new Error(`fake youtube: no channel ${handle}`)
    return this.channels.get(id)!
  }

  /** Publishes `count` new uploads on a channel, newest now; returns them newest first. */
  addUploads(channelId: string, count = 1): FakeVideo[] {
    const channel = this.channels.get(channelId)
    if (!channel) throw new Error(`fake youtube: no channel ${channelId}`)
    const newest = channel.uploads[0] ? this.videos.get(channel.uploads[0])!.publishedAt.getTime() : 0
    const base = Math.max(Date.now(), newest + 1000)
    const added: FakeVideo[] = []
    for (let i = 0; i < count; i++) {
      const at = new Date(Math.floor((base + (count - i) * 1000) / 1000) * 1000)
      const video = this.makeVideo(channel, at, this.pick(ASSIGNABLE))
      added.push(video)
    }
    channel.uploads = [...added.map((v) => v.id), ...channel.uploads]
    return added
  }

  /** Makes a video private/deleted: gone from the API and the feed. */
  removeVideo(videoId: string) {
    const video = this.videos.get(videoId)
    if (!video) return
    this.videos.delete(videoId)
    const channel = this.channels.get(video.channelId)!
    channel.uploads = channel.uploads.filter((id) => id !== videoId)
  }

  subscribe(viewerId: string, channelId: string) {
    const viewer = this.channels.get(viewerId)!
    viewer.subscriptions = [...(viewer.subscriptions ?? []).filter((id) => id !== channelId), channelId]
  }

  unsubscribe(viewerId: string, channelId: string) {
    const viewer = this.channels.get(viewerId)!
    viewer.subscriptions = (viewer.subscriptions ?? []).filter((id) => id !== channelId)
  }

  /** The next `count` API calls answer `status` (default 503 backendError). */
  failNext(count = 1, status = 503) {
    for (let i = 0; i < count; i++) this.failures.push(status)
  }

  resetCounters() {
    this.units = 0
    this.calls = {}
    this.feedRequests = 0
  }

  /** Counters to zero, no pending failures, no quota limit, feeds up. */
  reset() {
    this.resetCounters()
    this.failures = []
    this.quota = this.opts.quota ?? null
    this.feedDown = false
    this.latencyMs = 0
  }

  // ---- server -------------------------------------------------------------

  get url(): string {
    if (!this.server) throw new Error('fake youtube: not started')
    return `http://${this.server.hostname === '::1' ? '[::1]' : this.server.hostname}:${this.server.port}`
  }
  get apiUrl() {
    return `${this.url}/youtube/v3`
  }
  get feedUrl() {
    return this.url
  }
  get mediaUrl() {
    return `${this.url}/media`
  }
  /** Settings for the app to talk to this fake. */
  get env(): Record<string, string> {
    return {
      YOUTUBE_API_URL: this.apiUrl,
      YOUTUBE_FEED_URL: this.feedUrl,
      YOUTUBE_MEDIA_URL: this.mediaUrl,
      ...(this.opts.apiKey ? { YOUTUBE_API_KEY: this.opts.apiKey } : {}),
    }
  }

  async start(): Promise<this> {
    if (this.opts.media !== false) this.clip = await ensureClip(this.opts)
    this.server = Bun.serve({
      port: this.opts.port ?? 0,
      hostname: this.opts.hostname ?? '127.0.0.1',
      fetch: (req) => this.handle(req),
    })
    return this
  }

  async stop() {
    await this.server?.stop(true)
    this.server = null
  }

  private thumbs(kind: 'vi' | 'channel', id: string) {
    const base = kind === 'vi' ? `${this.url}/vi/${id}` : `${this.url}/channel-art/${id}`
    return kind === 'vi'
      ? {
          default: { url: `${base}/default.svg`, width: 120, height: 90 },
          medium: { url: `${base}/mqdefault.svg`, width: 320, height: 180 },
          high: { url: `${base}/hqdefault.svg`, width: 480, height: 360 },
        }
      : {
          default: { url: `${base}.svg?s=88`, width: 88, height: 88 },
          medium: { url: `${base}.svg?s=240`, width: 240, height: 240 },
          high: { url: `${base}.svg?s=800`, width: 800, height: 800 },
        }
  }

  private async handle(req: Request): Promise<Response> {
    if (this.latencyMs) await Bun.sleep(this.latencyMs)
    const url = new URL(req.url)
    const path = url.pathname
    if (path.startsWith('/youtube/v3/')) return this.api(path.slice('/youtube/v3/'.length), url.searchParams)
    if (path === '/feeds/videos.xml') return this.feed(url.searchParams.get('channel_id'))
    let m = /^\/media\/([\w-]{11})\.webm$/.exec(path)
    if (m) return this.media(m[1]!, req)
    m = /^\/vi\/([\w-]{11})\/\w+\.svg$/.exec(path)
    if (m) return this.svg(this.videos.get(m[1]!)?.title, m[1]!)
    m = /^\/channel-art\/(UC[\w-]{22})\.svg$/.exec(path)
    if (m) return this.svg(this.channels.get(m[1]!)?.title, m[1]!, true)
    if (path.startsWith('/_fake/')) return this.control(req, path.slice('/_fake/'.length), url.searchParams)
    return new Response('Not Found', { status: 404 })
  }

  private page<T>(list: T[], params: URLSearchParams, key: string): Response | { items: T[]; next?: string; prev?: string } {
    const max = params.get('maxResults') ?? '5'
    const size = Number(max)
    if (!/^\d+$/.test(max) || size > MAX_RESULTS) return ERRORS.invalid('maxResults', max)
    let offset = 0
    const token = params.get('pageToken')
    if (token) {
      try {
        const parsed = JSON.parse(Buffer.from(token, 'base64url').toString()) as { k: string; o: number }
        if (parsed.k !== key || !Number.isInteger(parsed.o) || parsed.o < 0) return ERRORS.pageToken()
        offset = parsed.o
      } catch {
        return ERRORS.pageToken()
      }
    }
    const encode = (o: number) => Buffer.from(JSON.stringify({ k: key, o })).toString('base64url')
    const items = list.slice(offset, offset + size)
    return {
      items,
      ...(offset + size < list.length ? { next: encode(offset + size) } : {}),
      ...(offset > 0 ? { prev: encode(Math.max(0, offset - size)) } : {}),
    }
  }

  private api(resource: string, params: URLSearchParams): Response {
    this.calls[resource] = (this.calls[resource] ?? 0) + 1
    if (this.opts.apiKey) {
      const key = params.get('key')
      if (!key) return ERRORS.missingKey()
      if (key !== this.opts.apiKey) return ERRORS.badKey()
    }
    if (this.quota !== null && this.units >= this.quota) return ERRORS.quotaExceeded()
    if (!['channels', 'playlistItems', 'videos', 'subscriptions', 'videoCategories'].includes(resource)) {
      return ERRORS.notFound()
    }
    // every answered list call costs 1 unit, errors included
    this.units += 1
    const failure = this.failures.shift()
    if (failure) return ERRORS.backend(failure)
    const part = params.get('part')
    if (!part) return ERRORS.required('part')
    const parts = new Set(part.split(','))
    switch (resource) {
      case 'channels':
        return this.channelsList(params, parts)
      case 'playlistItems':
        return this.playlistItemsList(params, parts)
      case 'videos':
        return this.videosList(params, parts)
      case 'subscriptions':
        return this.subscriptionsList(params)
      default:
        return Response.json({
          kind: 'youtube#videoCategoryListResponse',
          etag: 'fake',
          items: YOUTUBE_CATEGORIES.map((c) => ({
            kind: 'youtube#videoCategory',
            etag: `fake-${c.id}`,
            id: String(c.id),
            snippet: { title: c.name, assignable: c.assignable, channelId: 'UCBR8-60-B28hp2BmDPdntcQ' },
          })),
        })
    }
  }

  private channelResource(c: FakeChannel, parts: Set<string>) {
    return {
      kind: 'youtube#channel',
      etag: `fake-${c.id}`,
      id: c.id,
      ...(parts.has('snippet')
        ? {
            snippet: {
              title: c.title,
              description: c.description,
              customUrl: c.handle,
              publishedAt: iso(c.publishedAt),
              thumbnails: this.thumbs('channel', c.id),
              localized: { title: c.title, description: c.description },
            },
          }
        : {}),
      ...(parts.has('contentDetails') ? { contentDetails: { relatedPlaylists: { likes: '', uploads: `UU${c.id.slice(2)}` } } } : {}),
    }
  }

  private channelsList(params: URLSearchParams, parts: Set<string>): Response {
    const ids = params.get('id')
    const handle = params.get('forHandle')
    if (!ids && !handle) return apiError(400, 'missingRequiredParameter', 'No filter selected. Expected one of: forUsername, id, idParam, categoryId, forHandle, mine, mySubscribers, managedByMe', 'youtube.parameter')
    let found: FakeChannel[] = []
    if (ids) {
      const list = ids.split(',')
      if (list.length > MAX_RESULTS) return ERRORS.invalid('id', ids)
      found = list.map((id) => this.channels.get(id.trim())).filter((c): c is FakeChannel => !!c)
    } else {
      const h = handle!.startsWith('@') ? handle! : `@${handle}`
      const id = this.handles.get(h.toLowerCase())
      if (id) found = [this.channels.get(id)!]
    }
    // like the real API: no `items` key at all when nothing matched
    return Response.json({
      kind: 'youtube#channelListResponse',
      etag: 'fake',
      pageInfo: { totalResults: found.length, resultsPerPage: 5 },
      ...(found.length ? { items: found.map((c) => this.channelResource(c, parts)) } : {}),
    })
  }

  private videoSnippet(v: FakeVideo) {
    const channel = this.channels.get(v.channelId)!
    return {
      publishedAt: iso(v.publishedAt),
      channelId: v.channelId,
      title: v.title,
      description: v.description,
      thumbnails: this.thumbs('vi', v.id),
      channelTitle: channel.title,
    }
  }

  private playlistItemsList(params: URLSearchParams, parts: Set<string>): Response {
    const playlistId = params.get('playlistId')
    if (!playlistId) return apiError(400, 'playlistIdRequired', 'The request does not specify a value for the required <code>playlistId</code> property.', 'youtube.playlistItem')
    const channel = playlistId.startsWith('UU') ? this.channels.get(`UC${playlistId.slice(2)}`) : undefined
    if (!channel) return ERRORS.playlistNotFound()
    const paged = this.page(channel.uploads, params, playlistId)
    if (paged instanceof Response) return paged
    const offset = channel.uploads.indexOf(paged.items[0] ?? '')
    return Response.json({
      kind: 'youtube#playlistItemListResponse',
      etag: 'fake',
      ...(paged.next ? { nextPageToken: paged.next } : {}),
      ...(paged.prev ? { prevPageToken: paged.prev } : {}),
      items: paged.items.map((id, i) => {
        const v = this.videos.get(id)!
        return {
          kind: 'youtube#playlistItem',
          etag: `fake-${id}`,
          id: Buffer.from(`${playlistId}.${id}`).toString('base64url'),
          ...(parts.has('snippet')
            ? {
                snippet: {
                  ...this.videoSnippet(v),
                  playlistId,
                  position: offset + i,
                  resourceId: { kind: 'youtube#video', videoId: id },
                  videoOwnerChannelTitle: channel.title,
                  videoOwnerChannelId: channel.id,
                },
              }
            : {}),
          ...(parts.has('contentDetails') ? { contentDetails: { videoId: id, videoPublishedAt: iso(v.publishedAt) } } : {}),
        }
      }),
      pageInfo: { totalResults: channel.uploads.length, resultsPerPage: Number(params.get('maxResults') ?? 5) },
    })
  }

  private videosList(params: URLSearchParams, parts: Set<string>): Response {
    const ids = params.get('id')
    if (!ids) return apiError(400, 'missingRequiredParameter', 'No filter selected. Expected one of: chart, id, idParam, myRating', 'youtube.parameter')
    const list = ids.split(',')
    if (list.length > MAX_RESULTS) return ERRORS.invalid('id', ids)
    const found = list.map((id) => this.videos.get(id.trim())).filter((v): v is FakeVideo => !!v)
    return Response.json({
      kind: 'youtube#videoListResponse',
      etag: 'fake',
      items: found.map((v) => ({
        kind: 'youtube#video',
        etag: `fake-${v.id}`,
        id: v.id,
        ...(parts.has('snippet')
          ? {
              snippet: {
                ...this.videoSnippet(v),
                tags: ['fake'],
                categoryId: String(v.categoryId),
                liveBroadcastContent: 'none',
                localized: { title: v.title, description: v.description },
              },
            }
          : {}),
        ...(parts.has('contentDetails')
          ? {
              contentDetails: {
                duration: `PT${Math.floor(v.duration / 60) ? `${Math.floor(v.duration / 60)}M` : ''}${v.duration % 60}S`,
                dimension: '2d',
                definition: 'sd',
                caption: 'false',
                licensedContent: false,
                contentRating: {},
                projection: 'rectangular',
              },
            }
          : {}),
      })),
      pageInfo: { totalResults: found.length, resultsPerPage: found.length },
    })
  }

  private subscriptionsList(params: URLSearchParams): Response {
    const channelId = params.get('channelId')
    if (!channelId) return apiError(400, 'missingRequiredParameter', 'No filter selected. Expected one of: channelId, id, mine, myRecentSubscribers, mySubscribers', 'youtube.parameter')
    const viewer = this.channels.get(channelId)
    if (!viewer) return ERRORS.subscriberNotFound()
    if (viewer.subscriptions === null) return ERRORS.subscriptionForbidden()
    const subscribed = viewer.subscriptions.map((id) => this.channels.get(id)).filter((c): c is FakeChannel => !!c)
    if (params.get('order') === 'alphabetical') subscribed.sort((a, b) => a.title.localeCompare(b.title))
    const paged = this.page(subscribed, params, `subs-${channelId}`)
    if (paged instanceof Response) return paged
    return Response.json({
      kind: 'youtube#subscriptionListResponse',
      etag: 'fake',
      ...(paged.next ? { nextPageToken: paged.next } : {}),
      ...(paged.prev ? { prevPageToken: paged.prev } : {}),
      pageInfo: { totalResults: subscribed.length, resultsPerPage: Number(params.get('maxResults') ?? 5) },
      items: paged.items.map((c) => ({
        kind: 'youtube#subscription',
        etag: `fake-${viewer.id}-${c.id}`,
        id: Buffer.from(`${viewer.id}.${c.id}`).toString('base64url'),
        snippet: {
          publishedAt: iso(c.publishedAt),
          title: c.title,
          description: c.description,
          resourceId: { kind: 'youtube#channel', channelId: c.id },
          channelId: viewer.id,
          thumbnails: this.thumbs('channel', c.id),
        },
      })),
    })
  }

  private feed(channelId: string | null): Response {
    this.feedRequests++
    if (this.feedDown) return new Response('<html><body>Internal Server Error</body></html>', { status: 500 })
    const channel = channelId ? this.channels.get(channelId) : undefined
    if (!channel) return new Response('<html><body>Not Found</body></html>', { status: 404, headers: { 'content-type': 'text/html' } })
    const link = `https://www.youtube.com/channel/${channel.id}`
    const entries = channel.uploads.slice(0, FEED_ENTRIES).map((id) => {
      const v = this.videos.get(id)!
      return ` <entry>
  <id>yt:video:${id}</id>
  <yt:videoId>${id}</yt:videoId>
  <yt:channelId>${channel.id}</yt:channelId>
  <title>${xml(v.title)}</title>
  <link rel="alternate" href="https://www.youtube.com/watch?v=${id}"/>
  <author>
   <name>${xml(channel.title)}</name>
   <uri>${link}</uri>
  </author>
  <published>${v.publishedAt.toISOString().replace(/\.\d{3}Z$/, '+00:00')}</published>
  <updated>${v.publishedAt.toISOString().replace(/\.\d{3}Z$/, '+00:00')}</updated>
  <media:group>
   <media:title>${xml(v.title)}</media:title>
   <media:content url="https://www.youtube.com/v/${id}?version=3" type="application/x-shockwave-flash" width="640" height="390"/>
   <media:thumbnail url="${this.url}/vi/${id}/hqdefault.svg" width="480" height="360"/>
   <media:description>${xml(v.description)}</media:description>
   <media:community>
    <media:starRating count="0" average="0.00" min="1" max="5"/>
    <media:statistics views="0"/>
   </media:community>
  </media:group>
 </entry>`
    })
    const body = `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns:yt="http://www.youtube.com/xml/schemas/2015" xmlns:media="http://search.yahoo.com/mrss/" xmlns="http://www.w3.org/2005/Atom">
 <link rel="self" href="http://www.youtube.com/feeds/videos.xml?channel_id=${channel.id}"/>
 <id>yt:channel:${channel.id.slice(2)}</id>
 <yt:channelId>${channel.id.slice(2)}</yt:channelId>
 <title>${xml(channel.title)}</title>
 <link rel="alternate" href="${link}"/>
 <author>
  <name>${xml(channel.title)}</name>
  <uri>${link}</uri>
 </author>
 <published>${channel.publishedAt.toISOString().replace(/\.\d{3}Z$/, '+00:00')}</published>
${entries.join('\n')}
</feed>
`
    return new Response(body, { headers: { 'content-type': 'text/xml; charset=UTF-8' } })
  }

  private media(videoId: string, req: Request): Response {
    if (!this.clip || !this.videos.has(videoId)) return new Response('Not Found', { status: 404 })
    const file = Bun.file(this.clip)
    const size = file.size
    const headers: Record<string, string> = {
      'content-type': 'video/webm',
      'accept-ranges': 'bytes',
      'access-control-allow-origin': '*',
      'cache-control': 'public, max-age=3600',
    }
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.get('range') ?? '')
    if (range && (range[1] || range[2])) {
      let start = range[1] ? Number(range[1]) : size - Number(range[2])
      let end = range[1] && range[2] ? Number(range[2]) : size - 1
      start = Math.max(0, start)
      end = Math.min(end, size - 1)
      if (start > end) return new Response(null, { status: 416, headers: { 'content-range': `bytes */${size}` } })
      return new Response(file.slice(start, end + 1), {
        status: 206,
        headers: { ...headers, 'content-range': `bytes ${start}-${end}/${size}`, 'content-length': String(end - start + 1) },
      })
    }
    return new Response(file, { headers: { ...headers, 'content-length': String(size) } })
  }

  private svg(title: string | undefined, id: string, round = false): Response {
    if (!title) return new Response('Not Found', { status: 404 })
    let hash = 0
    for (const ch of id) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0
    const hue = hash % 360
    const [w, h] = round ? [240, 240] : [480, 360]
    const initials = title
      .split(/\s+/)
      .map((w) => w[0])
      .join('')
      .slice(0, 3)
    const shape = round
      ? `<circle cx="120" cy="120" r="120" fill="hsl(${hue} 55% 45%)"/>`
      : `<rect width="${w}" height="${h}" fill="hsl(${hue} 45% 30%)"/><rect y="${h - 70}" width="${w}" height="70" fill="rgba(0,0,0,.45)"/>`
    const text = round
      ? `<text x="120" y="140" font-size="64" text-anchor="middle" fill="#fff" font-family="sans-serif">${xml(initials)}</text>`
      : `<text x="20" y="${h - 28}" font-size="26" fill="#fff" font-family="sans-serif">${xml(title.slice(0, 32))}</text>`
    return new Response(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${shape}${text}</svg>`, {
      headers: { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=3600', 'access-control-allow-origin': '*' },
    })
  }

  /** Test and demo controls: not part of YouTube. */
  private async control(req: Request, path: string, params: URLSearchParams): Promise<Response> {
    if (path === 'stats') return Response.json({ units: this.units, calls: this.calls, feedRequests: this.feedRequests })
    if (path === 'channels') {
      return Response.json(
        [...this.channels.values()].map((c) => ({ id: c.id, handle: c.handle, title: c.title, uploads: c.uploads.length })),
      )
    }
    if (req.method !== 'POST') return new Response('Method Not Allowed', { status: 405 })
    const m = /^channels\/([^/]+)\/uploads$/.exec(path)
    if (m) {
      const key = decodeURIComponent(m[1]!)
      const channel = key.startsWith('@') ? this.channel(key) : this.channels.get(key)
      if (!channel) return new Response('Not Found', { status: 404 })
      const added = this.addUploads(channel.id, Number(params.get('count') ?? 1))
      return Response.json(added.map((v) => v.id))
    }
    if (path === 'quota') {
      const limit = params.get('limit')
      this.quota = limit ? Number(limit) : null
      if (params.has('reset')) this.units = 0
      return Response.json({ quota: this.quota, units: this.units })
    }
    if (path === 'fail') {
      this.failNext(Number(params.get('count') ?? 1), Number(params.get('status') ?? 503))
      return Response.json({ ok: true })
    }
    return new Response('Not Found', { status: 404 })
  }
}

/** Makes (once, then cached) the VP8/Opus clip every fake video plays. */
export async function ensureClip(opts: { cacheDir?: string; ffmpegPath?: string } = {}): Promise<string> {
  const dir = opts.cacheDir ?? join(tmpdir(), 'tunefeed-fake-youtube')
  const file = join(dir, `clip-v1-${CLIP_SECONDS}s.webm`)
  if (existsSync(file)) return file
  mkdirSync(dir, { recursive: true })
  const partial = `${file}.${process.pid}.${Date.now()}.part.webm`
  const proc = Bun.spawn(
    [
      opts.ffmpegPath ?? '/usr/bin/ffmpeg',
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      `testsrc2=size=320x180:rate=15:duration=${CLIP_SECONDS}`,
      '-f',
      'lavfi',
      '-i',
      `sine=frequency=440:sample_rate=48000:duration=${CLIP_SECONDS}`,
      '-c:v',
      'libvpx',
      '-deadline',
      'realtime',
      '-cpu-used',
      '8',
      '-b:v',
      '150k',
      '-c:a',
      'libopus',
      '-b:a',
      '32k',
      '-shortest',
      '-y',
      partial,
    ],
    { stdout: 'ignore', stderr: 'pipe' },
  )
  const code = await proc.exited
  if (code !== 0) {
    rmSync(partial, { force: true })
    throw new Error(`fake youtube: ffmpeg failed (${code}): ${await new Response(proc.stderr).text()}`)
  }
  renameSync(partial, file) // atomic: a concurrent process sees the whole file or none
  return file
}

export async function startFakeYoutube(opts: FakeYoutubeOptions = {}): Promise<FakeYoutube> {
  return new FakeYoutube(opts).start()
}

if (import.meta.main) {
  const { parseArgs } = await import('node:util')
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '4010' },
      host: { type: 'string', default: '127.0.0.1' },
      seed: { type: 'string', default: '1' },
      'api-key': { type: 'string' },
      quota: { type: 'string' },
      'no-media': { type: 'boolean', default: false },
    },
  })
  const fake = await startFakeYoutube({
    port: Number(values.port),
    hostname: values.host,
    seed: Number(values.seed),
    apiKey: values['api-key'],
    quota: values.quota ? Number(values.quota) : undefined,
    media: !values['no-media'],
  })
  console.log(`fake YouTube listening on ${fake.url} (${fake.channels.size} channels, ${fake.videos.size} videos)`)
  console.log('Start the app with:')
  for (const [k, v] of Object.entries(fake.env)) console.log(`  ${k}=${v}`)
  console.log(`Handles: ${[...FIXED_CHANNELS, ...VIEWER_CHANNELS].map((c) => c.handle).join(' ')}`)
  console.log(`Controls: POST ${fake.url}/_fake/channels/@lofi-garden/uploads?count=3 · GET ${fake.url}/_fake/stats`)
  const stop = async () => {
    await fake.stop()
    process.exit(0)
  }
  process.on('SIGINT', () => void stop())
  process.on('SIGTERM', () => void stop())
}
