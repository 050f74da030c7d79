import { YOUTUBE_CATEGORIES } from '../../src/youtube/categories.ts'

// The fake's world: channels, videos and viewers' subscriptions, generated from a seed.

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
  kind: 'video' | 'short' | 'live' | 'upcoming'
}

/** Length of the served clip; every fake video has this duration. */
export const CLIP_SECONDS = 30
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

export interface FakeDataOptions {
  seed?: number
  /** Anchor for generated publish dates (default: start time). */
  now?: Date
  /** How many channels to generate beside the fixed ones (default 54). */
  generatedChannels?: number
}

export class FakeData {
  readonly channels = new Map<string, FakeChannel>()
  readonly videos = new Map<string, FakeVideo>()
  /** Handle (lower-case, with @) to channel id. */
  readonly handles = new Map<string, string>()
  private rand: () => number
  private clock: number
  private generatedChannels: number

  constructor(opts: FakeDataOptions = {}) {
    this.rand = mulberry32(opts.seed ?? 1)
    this.clock = (opts.now ?? new Date()).getTime()
    this.generatedChannels = opts.generatedChannels ?? GENERATED_CHANNELS
    this.generate()
  }

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
      kind: 'video',
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
    for (let i = 0; i < (this.generatedChannels); i++) {
      const a = WORDS_A[i % WORDS_A.length]!
      const b = WORDS_B[(i * 7 + 3) % WORDS_B.length]!
      const ch = this.addChannel(`@${a}-${b}-${i}`.toLowerCase(), `${a} ${b}`, 500 + i * 13)
      this.fill(ch, Math.floor(this.rand() * 40), this.pick(ASSIGNABLE), 1 + this.rand() * 10)
      content.push(ch)
    }
    // a few Shorts and streams on fixed channels (no random draw: the rest of the world stays as it was)
    const starLab = this.channel('@star-lab').uploads
    for (const i of [1, 5, 9]) this.videos.get(starLab[i]!)!.kind = 'short'
    const arcade = this.channel('@pixel-arcade').uploads
    this.videos.get(arcade[2]!)!.kind = 'live'
    this.videos.get(arcade[3]!)!.kind = 'upcoming'
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
  addUploads(channelId: string, count = 1, kind: FakeVideo['kind'] = 'video'): FakeVideo[] {
    const channel = this.channels.get(channelId)
    if (!channel) throw new Error(`fake youtube: no channel ${channelId}`)
    const newest = channel.uploads[0] ? this.videos.get(channel.uploads[0])!.publishedAt.getTime() : 0
    const base = Math.max(Date.now(), newest + 1000)
    const added: FakeVideo[] = []
    for (let i = 0; i < count; i++) {
      const at = new Date(Math.floor((base + (count - i) * 1000) / 1000) * 1000)
      const video = this.makeVideo(channel, at, this.pick(ASSIGNABLE))
      video.kind = kind
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

}
