import { FakeData, type FakeDataOptions } from './data.ts'
import { api } from './api.ts'
import { channelPage } from './channel-page.ts'
import { embedPage, embedStatus, iframeApi } from './iframe-api.ts'
import { control } from './control.ts'
import { feed } from './feed.ts'
import { ensureClip, ensureClipParts, type MediaKind, media } from './media.ts'
import { demoSegments, SKIP_SEGMENTS_PATH, skipSegmentsAnswer, type StandInSegment } from './sponsorblock.ts'
import { svg } from './thumbnails.ts'
import { dashManifest, watchPage } from './watch.ts'

/**
 * The fake YouTube server: the world of data.ts, plus the counters, quota and
 * failure switches tests turn, and the routing to each endpoint group.
 */

export interface FakeYoutubeOptions extends FakeDataOptions {
  port?: number
  hostname?: string
  /**
   * Every API call must carry `key=<apiKey>` (default `fake-api-key`, handed to the app
   * in `env`); `''` for a keyless world: the app then works from feeds and channel pages.
   */
  apiKey?: string
  /** Units after which the API answers 403 quotaExceeded (default: never). */
  quota?: number
  /** Generate and serve the WebM clip (default true). */
  media?: boolean
  /** Where the generated clip is cached. */
  cacheDir?: string
  ffmpegPath?: string
}

export class FakeYoutube extends FakeData {
  /** Quota units spent, as the real API would count them (1 per list call answered). */
  units = 0
  /** Calls per endpoint, including refused ones. */
  calls: Record<string, number> = {}
  feedRequests = 0
  /** Channel pages served (the keyless lookups). */
  pageRequests = 0
  iframeApiRequests = 0
  embedRequests = 0
  /** Videos whose owner disabled embedding: the embed answers this error (101 or 150). */
  embedErrors = new Map<string, 101 | 150>()
  /** Units after which calls answer 403 quotaExceeded; null for no limit. */
  quota: number | null
  /** While true, every feed answers 500 (the client must fall back to the API). */
  feedDown = false
  /** Added before every answer (tests use it to look at a refresh in flight). */
  latencyMs = 0
  /** While set, requests whose path matches wait until released (see `hold`). */
  private held: { match: (path: string) => boolean; release: () => void; wait: Promise<void> } | null = null
  /** The served clip's file, its audio alone and a still; null without media. */
  clip: string | null = null
  videoOnly: string | null = null
  audio: string | null = null
  still: string | null = null
  /** Watch pages served (what the demo's yt-dlp reads: scripts/fake-youtube/ytdlp.ts). */
  watchRequests = 0
  /** SponsorBlock segments by video id (`<url>/sponsorblock`): a few per channel to begin with (sponsorblock.ts). */
  readonly segments: Map<string, StandInSegment[]>
  /** SponsorBlock requests answered (their paths with the query). */
  sponsorBlockRequests: string[] = []
  private failures: number[] = []
  private server: ReturnType<typeof Bun.serve> | null = null

  constructor(readonly opts: FakeYoutubeOptions = {}) {
    super(opts)
    this.quota = opts.quota ?? null
    this.segments = demoSegments(this)
  }

  /** The next `count` API calls answer `status` (default 503 backendError). */
  failNext(count = 1, status = 503) {
    for (let i = 0; i < count; i++) this.failures.push(status)
  }

  /** Status of the next injected failure, if any (taken). */
  takeFailure(): number | undefined {
    return this.failures.shift()
  }

  resetCounters() {
    this.units = 0
    this.calls = {}
    this.feedRequests = 0
    this.pageRequests = 0
    this.iframeApiRequests = 0
    this.embedRequests = 0
    this.watchRequests = 0
    this.sponsorBlockRequests = []
  }

  /** Counters to zero, no pending failures, no quota limit, feeds up. */
  reset() {
    this.resetCounters()
    this.failures = []
    this.quota = this.opts.quota ?? null
    this.feedDown = false
    this.latencyMs = 0
    this.embedErrors.clear()
    this.held?.release()
  }

  /**
   * Holds every request whose path matches until the returned function is called:
   * tests keep a refresh in flight for as long as they need to look at it, whatever
   * the machine's load (a fixed latency is too short on a busy machine).
   */
  hold(match: (path: string) => boolean): () => void {
    const { promise, resolve } = Promise.withResolvers<void>()
    const held = { match, wait: promise, release: () => resolve() }
    this.held = held
    return () => {
      if (this.held === held) this.held = null
      held.release()
    }
  }

  // ---- server -------------------------------------------------------------

  get url(): string {
    if (!this.server) throw new Error('fake youtube: not started')
    return `http://${this.server.hostname === '::1' ? '[::1]' : this.server.hostname}:${this.server.port}`
  }
  get apiKey(): string {
    return this.opts.apiKey ?? 'fake-api-key'
  }
  get apiUrl() {
    return `${this.url}/youtube/v3`
  }
  get feedUrl() {
    return this.url
  }
  /** The IFrame Player API stand-in (the app's YOUTUBE_IFRAME_API_URL). */
  get iframeApiUrl() {
    return `${this.url}/iframe_api`
  }
  get mediaUrl() {
    return `${this.url}/media`
  }
  /** The SponsorBlock stand-in (the app's SPONSORBLOCK_URL). */
  get sponsorBlockUrl() {
    return `${this.url}/sponsorblock`
  }
  /** Settings for the app to talk to this fake. */
  get env(): Record<string, string> {
    return {
      YOUTUBE_API_URL: this.apiUrl,
      YOUTUBE_FEED_URL: this.feedUrl,
      YOUTUBE_MEDIA_URL: this.mediaUrl,
      YOUTUBE_IFRAME_API_URL: this.iframeApiUrl,
      ...(this.apiKey ? { YOUTUBE_API_KEY: this.apiKey } : {}),
    }
  }

  async start(): Promise<this> {
    if (this.opts.media !== false) {
      this.clip = await ensureClip(this.opts)
      ;({ videoOnly: this.videoOnly, audio: this.audio, still: this.still } = await ensureClipParts(this.clip, this.opts))
    }
    this.server = Bun.serve({
      port: this.opts.port ?? 0,
      hostname: this.opts.hostname ?? '127.0.0.1',
      // a held request (see `hold`) may wait longer than Bun's default 10 s
      idleTimeout: 120,
      fetch: (req) => this.handle(req),
    })
    return this
  }

  async stop() {
    await this.server?.stop(true)
    this.server = null
  }

  private async handle(req: Request): Promise<Response> {
    if (this.latencyMs) await Bun.sleep(this.latencyMs)
    const url = new URL(req.url)
    const path = url.pathname
    if (this.held?.match(path)) await this.held.wait
    if (path.startsWith('/youtube/v3/')) return api(this, path.slice('/youtube/v3/'.length), url.searchParams)
    if (path === '/feeds/videos.xml') return feed(this, url.searchParams.get('channel_id'))
    if (path === '/iframe_api') return iframeApi(this)
    let m = /^\/embed\/([\w-]{11})\/status$/.exec(path)
    if (m) return embedStatus(this, m[1]!)
    // the player page; its script reads the video id from the path
    if (/^\/embed\/[\w-]{0,11}$/.test(path)) return embedPage(this)
    m = /^\/(?:channel\/(UC[\w-]{22})|(@[\w.%-]+))$/.exec(path)
    if (m) return channelPage(this, m[1] ?? m[2]!)
    if (path === '/watch') return watchPage(this, url.searchParams.get('v'))
    m = /^\/media\/([\w-]{11})\.mpd$/.exec(path)
    if (m) return dashManifest(this, m[1]!)
    m = /^\/media\/([\w-]{11})\.(webm|video\.webm|weba)$/.exec(path)
    if (m) return media(this, m[1]!, req, m[2] as MediaKind)
    m = /^\/vi\/([\w-]{11})\/\w+\.jpg$/.exec(path)
    if (m) return media(this, m[1]!, req, 'jpg')
    if (path.startsWith('/sponsorblock/')) {
      m = SKIP_SEGMENTS_PATH.exec(path.slice('/sponsorblock'.length))
      this.sponsorBlockRequests.push(`${path}${url.search}`)
      return m ? skipSegmentsAnswer(this.segments, m[1]!, url.searchParams) : new Response('Not Found', { status: 404 })
    }
    m = /^\/vi\/([\w-]{11})\/\w+\.svg$/.exec(path)
    if (m) return svg(this.videos.get(m[1]!)?.title, m[1]!)
    m = /^\/channel-art\/(UC[\w-]{22})\.svg$/.exec(path)
    if (m) return svg(this.channels.get(m[1]!)?.title, m[1]!, true)
    if (path.startsWith('/_fake/')) return control(this, req, path.slice('/_fake/'.length), url.searchParams)
    return new Response('Not Found', { status: 404 })
  }
}
