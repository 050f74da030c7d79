import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { Client } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { join } from 'node:path'
import { PLAYLIST_ITEMS, TEST_CHAPTERS, type MediaServer, type TestMedia } from '../../tests/support/media.ts'
import { startMusicTestApp, type MusicTestApp } from '../../tests/support/music.ts'
import { lookupFromInfo } from './lookup.ts'
import { ERROR_KIND_HEADER, type Lookup, lookupFailure } from './schema.ts'

// GET /lookup against Debian's yt-dlp reading pages from a local media server.
setDefaultTimeout(30_000)

let t: MusicTestApp
let media: MediaServer
let files: TestMedia
let alice: Client

beforeAll(async () => ({ media, files, alice } = t = await startMusicTestApp()), 60_000)
afterAll(() => t?.close())

const lookup = async (url: string): Promise<Lookup> => {
  const res = await alice.get(`/api/music/lookup?video_url=${encodeURIComponent(url)}`)
  expect(res.status).toBe(200)
  return (await res.json()) as Lookup
}

describe('GET /api/music/lookup', () => {
  test('a page titled "Artist - Title (Official Video) [4K]": parsed, noise removed, thumbnail as artwork', async () => {
    const url = `${media.url}/titled.html?title=${encodeURIComponent('Daft Punk - Get Lucky (Official Video) [4K]')}`
    const found = await lookup(url)
    expect(found).toEqual({
      title: 'Get Lucky',
      artist: 'Daft Punk',
      album: null,
      grouping: 'Test Uploader',
      artworkUrl: `${media.url}/cover.jpg`,
      trackNumber: null,
      year: null,
      duration: 3,
      chapters: [],
      playlist: null,
    })
    // cached per URL: a second ask does not run yt-dlp (the page is not fetched again)
    const before = media.hits.filter((h) => h.startsWith('/titled.html')).length
    expect(await lookup(url)).toEqual(found)
    expect(media.hits.filter((h) => h.startsWith('/titled.html')).length).toBe(before)
  })

  test('"Title | Artist" and "feat." kept in the title', async () => {
    expect(await lookup(`${media.url}/titled.html?title=${encodeURIComponent('Hello | Adele')}`)).toMatchObject({ title: 'Hello', artist: 'Adele' })
    const feat = await lookup(`${media.url}/titled.html?title=${encodeURIComponent('Mark Ronson - Uptown Funk ft. Bruno Mars')}`)
    expect(feat).toMatchObject({ title: 'Uptown Funk (feat. Bruno Mars)', artist: 'Mark Ronson' })
  })

  test('a video with chapters lists them', async () => {
    const found = await lookup(`${media.url}/album.html`)
    expect(found.title).toBe('Whole Album')
    expect(found.artist).toBe('Test Band')
    expect(found.album).toBe('Whole Album')
    expect(found.chapters).toEqual(TEST_CHAPTERS)
    expect(found.playlist).toBeNull()
  })

  test('a playlist link lists its entries, the album from its title', async () => {
    const found = await lookup(`${media.url}/playlist.rss`)
    expect(found.album).toBe('Test Playlist')
    expect(found.playlist).toEqual({
      title: 'Test Playlist',
      count: PLAYLIST_ITEMS.length,
      entries: PLAYLIST_ITEMS.map((i) => ({ url: `${media.url}${i.media}`, title: i.title, duration: i.seconds })),
    })
  })

  test('bad input: 401 first, 422 naming the field, 400 when yt-dlp cannot read the link', async () => {
    const anonymous = await new Client(t).get("/api/music/lookup?video_url=nope")
    expect(anonymous.status).toBe(401)
    await expectError(alice.get('/api/music/lookup?video_url=nope'), 422, /^video_url: Invalid Link/)
    await expectError(alice.get('/api/music/lookup'), 422, /^video_url: /)
    await expectError(alice.get(`/api/music/lookup?video_url=${encodeURIComponent(`${media.url}/nocover.html`)}`), 400, 'Unable to get video info.')
    await expectError(alice.get(`/api/music/lookup?video_url=${encodeURIComponent('http://10.1.2.3/x')}`), 422, /^video_url: /)
  })
})

describe('GET /api/music/lookup: plain pages and direct files', () => {
  test('a page with several <audio>: each entry keeps its own media URL, titles without " (1)"', async () => {
    const found = await lookup(`${media.url}/two-audio.html`)
    expect(found.playlist?.entries).toEqual([
      { url: `${media.url}/audio.mp3`, title: 'Two Songs', duration: null },
      { url: `${media.url}/audio.wav`, title: 'Two Songs', duration: null },
    ])
  })

  test('a page with one <audio>: its title without yt-dlp\'s " (1)"', async () => {
    expect((await lookup(`${media.url}/one-audio.html`)).title).toBe('One Song')
  })

  test("a direct MP3 link: the file's own tags, not a title from its name", async () => {
    const tagged = join(t.ctx.env.DATA_DIR, 'song.mp3')
    const made = Bun.spawnSync([
      process.env.FFMPEG_PATH || '/usr/bin/ffmpeg', '-loglevel', 'error', '-y', '-i', files.mp3, '-c', 'copy', '-id3v2_version', '3',
      '-metadata', 'title=Real Title', '-metadata', 'artist=Real Artist', '-metadata', 'album=Real Album', '-metadata', 'date=2001', tagged,
    ])
    expect(made.exitCode).toBe(0)
    media.addFile('song.mp3', tagged)
    expect(await lookup(`${media.url}/files/song.mp3`)).toMatchObject({ title: 'Real Title', artist: 'Real Artist', album: 'Real Album', year: 2001 })
  })
})

describe('GET /api/music/lookup: why a link could not be read', () => {
  // the body stays the fixed `{detail}`; the kind travels in a header the form turns into words
  const failed = async (url: string) => {
    const res = alice.get(`/api/music/lookup?video_url=${encodeURIComponent(url)}`)
    await expectError(res, 400, 'Unable to get video info.')
    return (await res).headers.get(ERROR_KIND_HEADER)
  }

  test('a page that answers 404: "not found" as the reason', async () => {
    const kind = await failed(`${media.url}/gone.html`)
    expect(kind).toBe('unavailable')
    expect(lookupFailure(kind)).toBe('Nothing could be read at this link: the page was not found (it was removed, or the link is wrong). Check the link.')
  })

  test('a page with nothing to download: not a page the downloader can read', async () => {
    expect(await failed(`${media.url}/nocover.html`)).toBe('unsupported_url')
  })

  test('a server that refuses the connection: unreachable, not an outdated downloader', async () => {
    const closed = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('') })
    const port = closed.port
    closed.stop(true)
    const kind = await failed(`http://127.0.0.1:${port}/song`)
    // yt-dlp's appended "Confirm you are on the latest version" does not decide the kind (src/tools/failure.ts)
    expect(kind).toBe('network')
    expect(lookupFailure(kind)).toMatch(/^Nothing could be read at this link: /)
  })
})

describe('lookupFromInfo (YouTube Music shape)', () => {
  test("the site's track, artist, album, year and track number win over the title", () => {
    const found = lookupFromInfo({
      title: 'Get Lucky (feat. Pharrell Williams)',
      track: 'Get Lucky',
      artist: 'Daft Punk, Pharrell Williams',
      album: 'Random Access Memories',
      release_year: 2013,
      track_number: 8,
      channel: 'Daft Punk - Topic',
      uploader: 'Daft Punk - Topic',
      duration: 369,
      thumbnails: [{ url: 'https://i.ytimg.com/small.jpg' }, { url: 'https://i.ytimg.com/maxres.jpg' }],
    })
    expect(found).toMatchObject({
      title: 'Get Lucky',
      artist: 'Daft Punk, Pharrell Williams',
      album: 'Random Access Memories',
      year: 2013,
      trackNumber: 8,
      grouping: 'Daft Punk - Topic',
      artworkUrl: 'https://i.ytimg.com/maxres.jpg',
    })
  })

  test('no artist in the title: the channel, without " - Topic"', () => {
    expect(lookupFromInfo({ title: 'Song Name', uploader: 'Singer - Topic' }).artist).toBe('Singer')
  })
})
