/**
 * The Subsonic answers, each described once as a shape that both writers walk: XML (attributes
 * for scalars, child elements for objects and lists, text for `value`) and JSON (the same names;
 * `value` stays a key, empty lists are left out as Navidrome and Supysonic do).
 * See docs/decisions/170-subsonic-api.md.
 */

type Scalar = string | number | boolean
interface AttrField<T extends Scalar> {
  k: 'attr'
  t?: T
}
interface TextField<T extends Scalar> {
  k: 'text'
  t?: T
}
interface NodeField<S extends Shape> {
  k: 'node'
  s: S
}
interface ListField<S extends Shape> {
  k: 'list'
  s: S
}
interface ValuesField<T extends Scalar> {
  k: 'values'
  t?: T
}
type Field = AttrField<Scalar> | TextField<Scalar> | NodeField<Shape> | ListField<Shape> | ValuesField<Scalar>
export type Shape = { readonly [key: string]: Field }

/** The data a shape describes; every field may be left out (undefined or null). */
export type Data<S extends Shape> = {
  [K in keyof S]?: S[K] extends AttrField<infer T>
    ? T | null
    : S[K] extends TextField<infer T>
      ? T
      : S[K] extends NodeField<infer N>
        ? Data<N> | null
        : S[K] extends ListField<infer N>
          ? Data<N>[]
          : S[K] extends ValuesField<infer T>
            ? T[]
            : never
}

export const str = { k: 'attr' } as AttrField<string>
export const num = { k: 'attr' } as AttrField<number>
export const bool = { k: 'attr' } as AttrField<boolean>
export const text = { k: 'text' } as TextField<string>
export const node = <S extends Shape>(s: S): NodeField<S> => ({ k: 'node', s })
export const list = <S extends Shape>(s: S): ListField<S> => ({ k: 'list', s })
export const values = <T extends Scalar>() => ({ k: 'values' }) as ValuesField<T>

// ---- the shapes (OpenSubsonic "Responses") -------------------------------------------------

const replayGain = { trackGain: num, trackPeak: num }

/** A song (`Child`), as docs/api.md lists its fields. */
export const child = {
  id: str,
  parent: str,
  isDir: bool,
  title: str,
  album: str,
  artist: str,
  track: num,
  year: num,
  genre: str,
  coverArt: str,
  size: num,
  contentType: str,
  suffix: str,
  duration: num,
  bitRate: num,
  path: str,
  playCount: num,
  created: str,
  starred: str,
  albumId: str,
  artistId: str,
  type: str,
  mediaType: str,
  played: str,
  isVideo: bool,
  replayGain: node(replayGain),
} as const

export const albumID3 = {
  id: str,
  name: str,
  artist: str,
  artistId: str,
  coverArt: str,
  songCount: num,
  duration: num,
  playCount: num,
  created: str,
  starred: str,
  year: num,
  genre: str,
  played: str,
} as const

export const artistID3 = { id: str, name: str, coverArt: str, albumCount: num, starred: str } as const

const playlist = {
  id: str,
  name: str,
  comment: str,
  owner: str,
  public: bool,
  songCount: num,
  duration: num,
  created: str,
  changed: str,
  coverArt: str,
} as const

/** An album as a directory (`Child` with isDir), as the older getAlbumList and search2 give it. */
const albumChild = { ...child, songCount: num } as const
const artistIndexed = { id: str, name: str, starred: str, albumCount: num, coverArt: str } as const

/** A podcast episode (OpenSubsonic `PodcastEpisode`: a `Child` with the podcast's fields). */
export const podcastEpisode = { ...child, streamId: str, channelId: str, description: str, publishDate: str, status: str } as const
const podcastChannel = { id: str, url: str, title: str, description: str, coverArt: str, originalImageUrl: str, status: str, episode: list(podcastEpisode) } as const
const bookmark = { position: num, username: str, comment: str, created: str, changed: str, entry: node(podcastEpisode) } as const

/** Every answer's payload, by the element name it is sent under. */
export const ANSWERS = {
  license: node({ valid: bool, email: str }),
  openSubsonicExtensions: list({ name: str, versions: values<number>() }),
  musicFolders: node({ musicFolder: list({ id: num, name: str }) }),
  indexes: node({
    lastModified: num,
    ignoredArticles: str,
    index: list({ name: str, artist: list({ id: str, name: str, starred: str, albumCount: num, coverArt: str }) }),
  }),
  directory: node({ id: str, parent: str, name: str, starred: str, playCount: num, child: list(child) }),
  artists: node({ ignoredArticles: str, index: list({ name: str, artist: list(artistID3) }) }),
  artist: node({ ...artistID3, album: list(albumID3) }),
  album: node({ ...albumID3, song: list(child) }),
  song: node(child),
  genres: node({ genre: list({ songCount: num, albumCount: num, value: text }) }),
  albumList2: node({ album: list(albumID3) }),
  randomSongs: node({ song: list(child) }),
  searchResult3: node({ artist: list(artistID3), album: list(albumID3), song: list(child) }),
  starred2: node({ artist: list(artistID3), album: list(albumID3), song: list(child) }),
  playlists: node({ playlist: list(playlist) }),
  playlist: node({ ...playlist, entry: list(child) }),
  playQueue: node({ current: str, position: num, username: str, changed: str, changedBy: str, entry: list(child) }),
  playQueueByIndex: node({ currentIndex: num, position: num, username: str, changed: str, changedBy: str, entry: list(child) }),
  scanStatus: node({ scanning: bool, count: num }),
  lyricsList: node({
    structuredLyrics: list({ lang: str, synced: bool, displayArtist: str, displayTitle: str, offset: num, line: list({ start: num, value: text }) }),
  }),
  lyrics: node({ artist: str, title: str, value: text }),
  podcasts: node({ channel: list(podcastChannel) }),
  newestPodcasts: node({ episode: list(podcastEpisode) }),
  podcastEpisode: node(podcastEpisode),
  bookmarks: node({ bookmark: list(bookmark) }),
  artistInfo2: node({ similarArtist: list(artistID3) }),
  albumInfo: node({}),
  similarSongs2: node({ song: list(child) }),
  topSongs: node({ song: list(child) }),
  nowPlaying: node({ entry: list({ ...child, username: str, minutesAgo: num, playerId: num, playerName: str }) }),
  albumList: node({ album: list(albumChild) }),
  searchResult2: node({ artist: list(artistIndexed), album: list(albumChild), song: list(child) }),
  user: node({
    username: str,
    email: str,
    scrobblingEnabled: bool,
    adminRole: bool,
    settingsRole: bool,
    downloadRole: bool,
    uploadRole: bool,
    playlistRole: bool,
    coverArtRole: bool,
    commentRole: bool,
    podcastRole: bool,
    streamRole: bool,
    jukeboxRole: bool,
    shareRole: bool,
    videoConversionRole: bool,
    folder: values<number>(),
  }),
} as const

type Answers = typeof ANSWERS
export type AnswerKey = keyof Answers
type FieldData<F> = F extends NodeField<infer N> ? Data<N> : F extends ListField<infer N> ? Data<N>[] : never
export type SongData = Data<typeof child>
export type AlbumData = Data<typeof albumID3>
export type ArtistData = Data<typeof artistID3>
export type EpisodeData = Data<typeof podcastEpisode>

/** What a method answers: one payload under its name, or nothing (a bare `ok`). */
export type Answer = { [K in AnswerKey]: { key: K; data: FieldData<Answers[K]> } }[AnswerKey] | null
export const answer = <K extends AnswerKey>(key: K, data: FieldData<Answers[K]>) => ({ key, data }) as Answer

export interface Envelope {
  version: string
  type: string
  serverVersion: string
}

export interface SubsonicFailure {
  code: number
  message: string
  helpUrl?: string
}

// ---- JSON ---------------------------------------------------------------------------------

function jsonOf(shape: Shape, data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key in shape) {
    const field = shape[key]!
    const v = data[key]
    if (v === undefined || v === null) continue
    if (field.k === 'attr' || field.k === 'text') out[key] = v
    else if (field.k === 'node') out[key] = jsonOf(field.s, v as Record<string, unknown>)
    else if (field.k === 'list') {
      const items = v as Record<string, unknown>[]
      if (items.length) out[key] = items.map((item) => jsonOf(field.s, item))
    } else if ((v as unknown[]).length) out[key] = v
  }
  return out
}

export function toJson(env: Envelope, body: Answer | { failure: SubsonicFailure }): string {
  const root: Record<string, unknown> = {
    status: 'failure' in (body ?? {}) ? 'failed' : 'ok',
    version: env.version,
    type: env.type,
    serverVersion: env.serverVersion,
    openSubsonic: true,
  }
  if (body && 'failure' in body) root.error = body.failure
  else if (body) {
    const field = ANSWERS[body.key] as Field
    root[body.key] =
      field.k === 'list'
        ? (body.data as Record<string, unknown>[]).map((item) => jsonOf(field.s, item))
        : jsonOf((field as NodeField<Shape>).s, body.data as Record<string, unknown>)
  }
  return JSON.stringify({ 'subsonic-response': root })
}

// ---- XML ----------------------------------------------------------------------------------

// XML 1.0 allows no control characters but tab, newline and carriage return
const esc = (s: string) =>
  s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)

function xmlOf(name: string, shape: Shape, data: Record<string, unknown>, out: string[]) {
  let attrs = ''
  let body = ''
  const children: string[] = []
  for (const key in shape) {
    const field = shape[key]!
    const v = data[key]
    if (v === undefined || v === null) continue
    if (field.k === 'attr') attrs += ` ${key}="${esc(String(v))}"`
    else if (field.k === 'text') body = esc(String(v))
    else if (field.k === 'node') xmlOf(key, field.s, v as Record<string, unknown>, children)
    else if (field.k === 'list') for (const item of v as Record<string, unknown>[]) xmlOf(key, field.s, item, children)
    else for (const item of v as Scalar[]) children.push(`<${key}>${esc(String(item))}</${key}>`)
  }
  out.push(body || children.length ? `<${name}${attrs}>${body}${children.join('')}</${name}>` : `<${name}${attrs}/>`)
}

export function toXml(env: Envelope, body: Answer | { failure: SubsonicFailure }): string {
  const failed = !!body && 'failure' in body
  const open = `<subsonic-response xmlns="http://subsonic.org/restapi" status="${failed ? 'failed' : 'ok'}" version="${env.version}" type="${esc(env.type)}" serverVersion="${esc(env.serverVersion)}" openSubsonic="true"`
  const inner: string[] = []
  if (body && 'failure' in body) {
    const { code, message, helpUrl } = body.failure
    inner.push(`<error code="${code}" message="${esc(message)}"${helpUrl ? ` helpUrl="${esc(helpUrl)}"` : ''}/>`)
  } else if (body) {
    const field = ANSWERS[body.key] as Field
    if (field.k === 'list') for (const item of body.data as Record<string, unknown>[]) xmlOf(body.key, field.s, item, inner)
    else xmlOf(body.key, (field as NodeField<Shape>).s, body.data as Record<string, unknown>, inner)
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n${open}${inner.length ? `>${inner.join('')}</subsonic-response>` : '/>'}`
}
