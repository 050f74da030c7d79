import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { SubsonicAPI } from 'subsonic-api'
import { type Client, createTestApp, serveTestApp, signUp, type TestApp } from '../../tests/support/app.ts'
import { musicForm, postForm, userIdOf, waitForJob } from '../../tests/support/music.ts'
import { testMedia } from '../../tests/support/media.ts'
import { addFinishedJob } from '../../tests/support/subsonic.ts'
import { updateUser } from '../admin/users.ts'
import { jobDir } from '../music/files.ts'
import { imageSize } from '../music/square.ts'
import { albumKeyOf, md5 } from './ids.ts'

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely, field by field
type Json = any

// The Subsonic API end to end: the real OpenSubsonic client (npm subsonic-api) over HTTP with
// both sign-ins, two users, finished jobs written as the pipeline leaves them.
setDefaultTimeout(60_000)

let t: TestApp
let server: ReturnType<typeof serveTestApp>
let base: string

interface Person {
  client: Client
  email: string
  password: string
  userId: string
  appPassword: string
  apiKey: string
  /** OpenSubsonic client with the salted token (username + app password). */
  token: SubsonicAPI
  /** The same with the API key. */
  keyed: SubsonicAPI
}
let alice: Person
let bob: Person
let single: string
let split: string
let other: string

async function person(): Promise<Person> {
  const { client, email, password } = await signUp(t)
  const userId = await userIdOf(t, client)
  const made = await client.request('/api/auth/subsonic', { method: 'POST' })
  expect(made.status).toBe(201)
  const { username, password: appPassword } = (await made.json()) as { username: string; password: string }
  expect(username).toBe(email)
  const tok = await client.post('/api/auth/tokens', { name: 'player' })
  const { token: apiKey } = (await tok.json()) as { token: string }
  return {
    client,
    email,
    password,
    userId,
    appPassword,
    apiKey,
    token: new SubsonicAPI({ url: base, auth: { username: email, password: appPassword } }),
    keyed: new SubsonicAPI({ url: base, auth: { apiKey } }),
  }
}

/** A raw /rest request (JSON unless `f` is given), answering the parsed `subsonic-response` (or the response). */
async function rest(method: string, params: Record<string, string | string[]>, init: RequestInit = {}) {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries({ f: 'json', v: '1.16.1', c: 'test', ...params })) for (const x of [v].flat()) q.append(k, x)
  return fetch(`${base}rest/${method}?${q}`, init)
}
async function json(method: string, params: Record<string, string | string[]>) {
  const res = await rest(method, params)
  expect(res.status).toBe(200)
  return ((await res.json()) as { 'subsonic-response': Json })['subsonic-response']
}
const as = (p: Person) => ({ apiKey: p.apiKey })

beforeAll(async () => {
  t = await createTestApp()
  server = serveTestApp(t)
  base = `http://127.0.0.1:${server.port}/`
  alice = await person()
  bob = await person()
  single = await addFinishedJob(t, alice.userId, { title: 'First Light', artist: 'The Dawn', album: 'Morning', grouping: 'Ambient', year: 2001, trackNumber: 2 })
  split = await addFinishedJob(t, alice.userId, { title: 'Live Set', artist: 'Bravo', album: 'Live', tracks: ['Intro', 'Song Two', 'Finale'], year: 2010 })
  await addFinishedJob(t, alice.userId, { title: 'Second', artist: 'The Dawn', album: 'Morning', grouping: 'Ambient', year: 2001, trackNumber: 1, artwork: false })
  other = await addFinishedJob(t, bob.userId, { title: 'Bobs Song', artist: 'Bob', album: 'Bobs Album' })
}, 120_000)
afterAll(async () => {
  server?.stop(true)
  await t?.close()
})

describe('app password routes', () => {
  test('GET says whether there is one; POST replaces it (the old one stops working); DELETE removes it', async () => {
    const { client, email } = await signUp(t)
    expect(await (await client.get('/api/auth/subsonic')).json()).toEqual({ username: email, hasPassword: false })
    const first = (await (await client.request('/api/auth/subsonic', { method: 'POST' })).json()) as { password: string }
    expect(first.password).toMatch(/^[a-z2-7]{24}$/)
    expect((await json('ping', { u: email, p: first.password })).status).toBe('ok')
    const second = (await (await client.request('/api/auth/subsonic', { method: 'POST' })).json()) as { password: string }
    expect(second.password).not.toBe(first.password)
    expect((await json('ping', { u: email, p: first.password })).error.code).toBe(40)
    expect((await json('ping', { u: email, p: second.password })).status).toBe('ok')
    expect(await (await client.get('/api/auth/subsonic')).json()).toEqual({ username: email, hasPassword: true })
    expect((await client.request('/api/auth/subsonic', { method: 'DELETE' })).status).toBe(204)
    expect((await json('ping', { u: email, p: second.password })).error.code).toBe(40)
  })

  test('it is kept encrypted, not in the clear', async () => {
    const rows = (await t.ctx.db.execute(`select sealed from subsonic_passwords where user_id = '${alice.userId}'`)) as unknown
    const sealed = JSON.stringify(rows)
    expect(sealed).not.toContain(alice.appPassword)
  })

  test('API tokens get 403 and anonymous requests 401', async () => {
    for (const method of ['GET', 'POST', 'DELETE']) {
      const bearer = await t.app.request('/api/auth/subsonic', { method, headers: { authorization: `Bearer ${alice.apiKey}` } })
      expect(bearer.status).toBe(403)
      expect((await t.app.request('/api/auth/subsonic', { method })).status).toBe(401)
    }
  })
})

describe('sign-in', () => {
  test('the real client signs in with the salted token and with the API key', async () => {
    for (const api of [alice.token, alice.keyed]) {
      const pong = await api.ping()
      expect(pong).toMatchObject({ status: 'ok', version: '1.16.1', type: 'tunefeed', openSubsonic: true })
      expect(typeof (pong as Json).serverVersion).toBe('string')
    }
  })

  test('p as plain text and as enc: hex; form POST', async () => {
    expect((await json('ping', { u: alice.email, p: alice.appPassword })).status).toBe('ok')
    expect((await json('ping', { u: alice.email, p: `enc:${Buffer.from(alice.appPassword).toString('hex')}` })).status).toBe('ok')
    const posted = await fetch(`${base}rest/getLicense.view`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ u: alice.email, p: alice.appPassword, f: 'json', v: '1.16.1', c: 'x' }),
    })
    expect(((await posted.json()) as Json)['subsonic-response'].license).toEqual({ valid: true, email: alice.email })
    const poster = new SubsonicAPI({ url: base, auth: { username: alice.email, password: alice.appPassword }, post: true })
    expect((await poster.getMusicFolders()).musicFolders.musicFolder).toEqual([{ id: 1, name: 'Music' }] as never)
  })

  test('the login password is never accepted', async () => {
    expect((await json('ping', { u: alice.email, p: alice.password })).error.code).toBe(40)
    const salt = 'abcdef'
    expect((await json('ping', { u: alice.email, t: md5(alice.password + salt), s: salt })).error.code).toBe(40)
  })

  test('errors sit in a 200: 10 missing, 40 wrong, 43 conflicting, 44 bad key', async () => {
    expect((await json('ping', {})).error.code).toBe(10)
    expect((await json('ping', { u: alice.email })).error.code).toBe(10)
    expect((await json('ping', { u: alice.email, t: 'x' })).error.code).toBe(10)
    expect((await json('ping', { u: alice.email, p: 'nope' })).error.code).toBe(40)
    expect((await json('ping', { u: 'nobody@example.com', p: 'nope' })).error.code).toBe(40)
    expect((await json('ping', { apiKey: alice.apiKey, u: alice.email })).error.code).toBe(43)
    expect((await json('ping', { u: alice.email, p: alice.appPassword, t: 'x', s: 'y' })).error.code).toBe(43)
    expect((await json('ping', { apiKey: 'tf_notatoken' })).error.code).toBe(44)
    const failed = await json('ping', { apiKey: 'tf_notatoken' })
    expect(failed).toMatchObject({ status: 'failed', version: '1.16.1', type: 'tunefeed', openSubsonic: true })
    expect(Object.keys(failed.error).sort()).toEqual(['code', 'message'])
  })

  test('XML is the default, with the error inside the envelope', async () => {
    const res = await rest('ping', { f: 'xml', u: alice.email, p: 'nope' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('xml')
    const body = await res.text()
    expect(body).toMatch(/<subsonic-response xmlns="http:\/\/subsonic.org\/restapi" status="failed" version="1.16.1" type="tunefeed" serverVersion="[^"]+" openSubsonic="true"><error code="40" message="[^"]+"\/><\/subsonic-response>$/)
  })

  test('getOpenSubsonicExtensions answers without signing in', async () => {
    const r = await json('getOpenSubsonicExtensions', {})
    expect(r.openSubsonicExtensions).toEqual([
      { name: 'apiKeyAuthentication', versions: [1] },
      { name: 'formPost', versions: [1] },
      { name: 'indexBasedQueue', versions: [1] },
      { name: 'transcodeOffset', versions: [1] },
      { name: 'songLyrics', versions: [1] },
    ])
    const xml = await (await rest('getOpenSubsonicExtensions', { f: 'xml' })).text()
    expect(xml).toContain('<openSubsonicExtensions name="formPost"><versions>1</versions></openSubsonicExtensions>')
  })

  test('an unknown method is a 404 in the envelope', async () => {
    const res = await rest('getNothing', as(alice))
    expect(res.status).toBe(404)
    expect(((await res.json()) as Json)['subsonic-response'].error.code).toBe(0)
  })
})

describe('browsing and searching', () => {
  test('getArtists, getArtist and getAlbum through the real client', async () => {
    const { artists } = await alice.token.getArtists()
    const names = artists.index!.flatMap((i) => (i.artist ?? []).map((a) => a.name))
    expect(names.sort()).toEqual(['Bravo', 'The Dawn'])
    expect(artists.index!.map((i) => i.name)).toEqual(['B', 'D'])
    const dawn = artists.index!.flatMap((i) => i.artist ?? []).find((a) => a.name === 'The Dawn')!
    expect(dawn.id).toBe(`ar-${md5(`${alice.userId}\u001fThe Dawn`)}`)
    const { artist } = await alice.keyed.getArtist({ id: dawn.id })
    expect(artist.album!.map((a) => a.name)).toEqual(['Morning'])
    const { album } = await alice.token.getAlbum({ id: artist.album![0]!.id })
    expect(album.id).toBe(`al-${albumKeyOf(alice.userId, 'The Dawn', 'Morning')}`)
    expect(album.song!.map((s) => s.title)).toEqual(['Second', 'First Light'])
    expect(album).toMatchObject({ songCount: 2, year: 2001, genre: 'Ambient', artist: 'The Dawn', duration: 4 })
    const song = album.song!.find((s) => s.title === 'First Light')!
    expect(song).toMatchObject({
      id: `tr-${single}`,
      parent: album.id,
      isDir: false,
      album: 'Morning',
      artist: 'The Dawn',
      albumId: album.id,
      artistId: dawn.id,
      track: 2,
      year: 2001,
      genre: 'Ambient',
      coverArt: `co-${single}`,
      contentType: 'audio/mpeg',
      suffix: 'mp3',
      duration: 2,
      bitRate: 128,
      type: 'music',
      playCount: 0,
      replayGain: { trackGain: -6.5, trackPeak: 0.891251 },
    })
    const file = join(jobDir(t.ctx.env.DATA_DIR, alice.userId, single), 'output', 'The Dawn - First Light.mp3')
    expect(song.size).toBe(readFileSync(file).length)
    expect(song.path).toBe('The Dawn/Morning/The Dawn - First Light.mp3')
    expect(typeof song.created).toBe('object') // the client turns dates into Date objects
  })

  test('a chapter split is one song per track', async () => {
    const { song } = await alice.keyed.getSong({ id: `tr-${split}-2` })
    expect(song).toMatchObject({ title: 'Song Two', track: 2, album: 'Live', artist: 'Bravo' })
    expect((await json('getSong', { ...as(alice), id: `tr-${split}` })).error.code).toBe(70)
  })

  test('getIndexes, getMusicDirectory, getMusicFolders and getGenres', async () => {
    const idx = (await json('getIndexes', as(alice))).indexes
    expect(idx.index.map((i: Json) => i.name)).toEqual(['B', 'D'])
    const dawn = idx.index[1].artist[0]
    const dir = (await json('getMusicDirectory', { ...as(alice), id: dawn.id })).directory
    expect(dir).toMatchObject({ id: dawn.id, name: 'The Dawn' })
    expect(dir.child[0]).toMatchObject({ isDir: true, title: 'Morning', parent: dawn.id })
    const albumDir = (await json('getMusicDirectory', { ...as(alice), id: dir.child[0].id })).directory
    expect(albumDir.child.map((c: Json) => c.title)).toEqual(['Second', 'First Light'])
    const root = (await json('getMusicDirectory', { ...as(alice), id: '1' })).directory
    expect(root.child.map((c: Json) => c.title).sort()).toEqual(['Bravo', 'The Dawn'])
    expect((await json('getGenres', as(alice))).genres).toEqual({ genre: [{ songCount: 2, albumCount: 1, value: 'Ambient' }] })
    const xml = await (await rest('getGenres', { ...as(alice), f: 'xml' })).text()
    expect(xml).toContain('<genres><genre songCount="2" albumCount="1">Ambient</genre></genres>')
  })

  test('getAlbumList2 with every type', async () => {
    const list = async (type: string, extra: Record<string, string> = {}) =>
      ((await json('getAlbumList2', { ...as(alice), type, size: '500', ...extra })).albumList2.album ?? []).map((a: Json) => a.name)
    expect(await list('alphabeticalByName')).toEqual(['Live', 'Morning'])
    expect(await list('alphabeticalByArtist')).toEqual(['Live', 'Morning'])
    expect(await list('newest')).toEqual(['Morning', 'Live'])
    expect((await list('random')).sort()).toEqual(['Live', 'Morning'])
    expect(await list('byYear', { fromYear: '2005', toYear: '2020' })).toEqual(['Live'])
    expect(await list('byYear', { fromYear: '2020', toYear: '2000' })).toEqual(['Live', 'Morning'])
    expect(await list('byGenre', { genre: 'Ambient' })).toEqual(['Morning'])
    expect(await list('newest', { size: '1', offset: '1' })).toEqual(['Live'])
    expect((await json('getAlbumList2', { ...as(alice), type: 'byYear' })).error.code).toBe(10)
    expect((await json('getAlbumList2', { ...as(alice) })).error.code).toBe(10)
    // frequent, recent and starred follow the plays and stars below
  })

  test('search3: an empty query or "" pages through everything; a query matches titles, artists and albums', async () => {
    for (const query of ['', '""']) {
      const seen: string[] = []
      for (let offset = 0; ; offset += 2) {
        const { searchResult3 } = await alice.token.search3({ query, songCount: 2, songOffset: offset, artistCount: 0, albumCount: 0 })
        const page = searchResult3.song ?? []
        seen.push(...page.map((s) => s.id))
        if (page.length < 2) break
      }
      expect(seen.length).toBe(5)
      expect(new Set(seen).size).toBe(5)
    }
    const r = (await json('search3', { ...as(alice), query: 'dawn' })).searchResult3
    expect(r.artist.map((a: Json) => a.name)).toEqual(['The Dawn'])
    expect(r.album.map((a: Json) => a.name)).toEqual(['Morning'])
    expect(r.song.map((s: Json) => s.title).sort()).toEqual(['First Light', 'Second'])
    expect((await json('search3', { ...as(alice), query: '100%' })).searchResult3).toEqual({})
    const random = (await json('getRandomSongs', { ...as(alice), size: '10', genre: 'Ambient' })).randomSongs.song
    expect(random.map((s: Json) => s.title).sort()).toEqual(['First Light', 'Second'])
  })
})

describe('streaming and covers', () => {
  const file = () => readFileSync(join(jobDir(t.ctx.env.DATA_DIR, alice.userId, single), 'output', 'The Dawn - First Light.mp3'))

  test('stream: the stored MP3, byte ranges (206, Content-Range) and HEAD', async () => {
    const bytes = file()
    const whole = await alice.token.stream({ id: `tr-${single}` })
    expect(whole.status).toBe(200)
    expect(whole.headers.get('content-type')).toBe('audio/mpeg')
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(new Uint8Array(bytes))
    const ranged = await rest('stream', { ...as(alice), id: `tr-${single}` }, { headers: { range: 'bytes=100-1099' } })
    expect(ranged.status).toBe(206)
    expect(ranged.headers.get('content-range')).toBe(`bytes 100-1099/${bytes.length}`)
    expect(new Uint8Array(await ranged.arrayBuffer())).toEqual(new Uint8Array(bytes.subarray(100, 1100)))
    const head = await rest('stream', { ...as(alice), id: `tr-${single}` }, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-length')).toBe(String(bytes.length))
    expect((await head.arrayBuffer()).byteLength).toBe(0)
    const dl = await alice.keyed.download({ id: `tr-${single}` })
    expect(dl.headers.get('content-disposition')).toContain('attachment')
    expect((await dl.arrayBuffer()).byteLength).toBe(bytes.length)
    const track = await rest('stream', { ...as(alice), id: `tr-${split}-3` })
    expect(track.status).toBe(200)
    expect(track.headers.get('content-type')).toBe('audio/mpeg')
  })

  test('getCoverArt: the artwork, scaled down with size and made once per size', async () => {
    const full = await alice.token.getCoverArt({ id: `co-${single}` })
    expect(full.status).toBe(200)
    expect(imageSize(new Uint8Array(await full.arrayBuffer()))).toEqual({ width: 64, height: 64 })
    const small = await alice.token.getCoverArt({ id: `co-${single}`, size: 32 })
    expect(small.headers.get('content-type')).toBe('image/jpeg')
    expect(imageSize(new Uint8Array(await small.arrayBuffer()))).toEqual({ width: 32, height: 32 })
    const covers = join(jobDir(t.ctx.env.DATA_DIR, alice.userId, single), 'covers')
    const made = readdirSync(covers)
    await alice.token.getCoverArt({ id: `co-${single}`, size: 32 })
    expect(readdirSync(covers)).toEqual(made)
    // album and song ids name their cover too
    const albumId = `al-${albumKeyOf(alice.userId, 'The Dawn', 'Morning')}`
    expect((await rest('getCoverArt', { ...as(alice), id: albumId })).headers.get('content-type')).toBe('image/jpeg')
    // a song without artwork has none
    const none = await json('getSong', { ...as(alice), id: `tr-${single}` })
    expect(none.song.coverArt).toBe(`co-${single}`)
  })
})

describe('stars, plays, playlists and the play queue', () => {
  test('star, getStarred2, unstar; getAlbumList2 starred', async () => {
    const albumId = `al-${albumKeyOf(alice.userId, 'Bravo', 'Live')}`
    await alice.token.star({ id: `tr-${single}`, albumId })
    const { starred2 } = await alice.keyed.getStarred2()
    expect(starred2.song!.map((s) => s.id)).toEqual([`tr-${single}`])
    expect(starred2.album!.map((a) => a.id)).toEqual([albumId])
    expect((await json('getAlbumList2', { ...as(alice), type: 'starred' })).albumList2.album.map((a: Json) => a.name)).toEqual(['Live'])
    expect((await json('getSong', { ...as(alice), id: `tr-${single}` })).song.starred).toBeString()
    await alice.token.unstar({ id: `tr-${single}`, albumId })
    expect((await alice.keyed.getStarred2()).starred2).toEqual({})
  })

  test('scrobble with submission counts a play and sets played; now-playing does not', async () => {
    await alice.token.scrobble({ id: `tr-${split}-1`, submission: false })
    expect((await json('getSong', { ...as(alice), id: `tr-${split}-1` })).song.playCount).toBe(0)
    await alice.token.scrobble({ id: `tr-${split}-1` })
    await alice.token.scrobble({ id: `tr-${split}-1`, time: Date.now() })
    const song = (await json('getSong', { ...as(alice), id: `tr-${split}-1` })).song
    expect(song.playCount).toBe(2)
    expect(song.played).toBeString()
    expect((await json('getAlbumList2', { ...as(alice), type: 'frequent' })).albumList2.album.map((a: Json) => a.name)).toEqual(['Live'])
    expect((await json('getAlbumList2', { ...as(alice), type: 'recent' })).albumList2.album.map((a: Json) => a.name)).toEqual(['Live'])
  })

  test('playlists: create, get, update (add, remove, rename), list, delete', async () => {
    const { playlist } = await alice.token.createPlaylist({ name: 'Road', songId: [`tr-${single}`, `tr-${split}-2`] })
    expect(playlist).toMatchObject({ name: 'Road', songCount: 2, owner: alice.email })
    expect(playlist.entry!.map((e) => e.title)).toEqual(['First Light', 'Song Two'])
    await alice.token.updatePlaylist({ playlistId: playlist.id, name: 'Road Trip', songIdToAdd: [`tr-${split}-3`], songIndexToRemove: [0] })
    const got = (await alice.keyed.getPlaylist({ id: playlist.id })).playlist
    expect(got.name).toBe('Road Trip')
    expect(got.entry!.map((e) => e.title)).toEqual(['Song Two', 'Finale'])
    expect((await alice.token.getPlaylists()).playlists.playlist!.map((p) => p.name)).toEqual(['Road Trip'])
    await alice.token.deletePlaylist({ id: playlist.id })
    expect((await json('getPlaylist', { ...as(alice), id: playlist.id })).error.code).toBe(70)
  })

  test('play queue: save, get, clear', async () => {
    await alice.token.savePlayQueue({ id: [`tr-${single}`, `tr-${split}-1`], current: `tr-${split}-1`, position: 12_000 })
    const { playQueue } = await alice.keyed.getPlayQueue()
    expect(playQueue).toMatchObject({ current: `tr-${split}-1`, position: 12000, username: alice.email })
    expect(playQueue!.entry!.map((e) => e.id)).toEqual([`tr-${single}`, `tr-${split}-1`])
    expect((await json('savePlayQueue', as(alice))).status).toBe('ok')
    expect((await json('getPlayQueue', as(alice))).playQueue).toBeUndefined()
  })

  test('getUser: only oneself', async () => {
    const { user } = await alice.token.getUser({ username: alice.email })
    expect(user).toMatchObject({ username: alice.email, email: alice.email, streamRole: true, downloadRole: true, playlistRole: true, adminRole: false })
    expect((await json('getUser', { ...as(alice), username: bob.email })).error.code).toBe(50)
  })
})

describe('each user sees only their own', () => {
  test("another user's ids are error 70 for every method that takes an id", async () => {
    const aliceAlbum = `al-${albumKeyOf(alice.userId, 'The Dawn', 'Morning')}`
    const aliceArtist = `ar-${md5(`${alice.userId}\u001fThe Dawn`)}`
    const { playlist } = await alice.token.createPlaylist({ name: 'Mine', songId: [`tr-${single}`] })
    const calls: [string, Record<string, string>][] = [
      ['getSong', { id: `tr-${single}` }],
      ['getSong', { id: `tr-${split}-1` }],
      ['getAlbum', { id: aliceAlbum }],
      ['getArtist', { id: aliceArtist }],
      ['getMusicDirectory', { id: aliceAlbum }],
      ['getMusicDirectory', { id: aliceArtist }],
      ['stream', { id: `tr-${single}` }],
      ['download', { id: `tr-${single}` }],
      ['getCoverArt', { id: `co-${single}` }],
      ['getCoverArt', { id: aliceAlbum }],
      ['star', { id: `tr-${single}` }],
      ['star', { albumId: aliceAlbum }],
      ['unstar', { artistId: aliceArtist }],
      ['scrobble', { id: `tr-${single}` }],
      ['getPlaylist', { id: playlist.id }],
      ['updatePlaylist', { playlistId: playlist.id, name: 'Taken' }],
      ['deletePlaylist', { id: playlist.id }],
      ['createPlaylist', { name: 'Stolen', songId: `tr-${single}` }],
      ['createPlaylist', { playlistId: playlist.id }],
      ['savePlayQueue', { id: `tr-${single}` }],
    ]
    for (const [method, params] of calls) {
      const r = await json(method, { ...as(bob), ...params })
      expect({ method, params, status: r.status, code: r.error?.code }).toEqual({ method, params, status: 'failed', code: 70 })
    }
    expect((await alice.keyed.getPlaylist({ id: playlist.id })).playlist.name).toBe('Mine')
    expect((await bob.keyed.getPlaylists()).playlists).toEqual({})
    const bobs = (await json('search3', { ...as(bob), query: '' })).searchResult3
    expect(bobs.song.map((s: Json) => s.id)).toEqual([`tr-${other}`])
  })

  test('a disabled user is refused with every sign-in', async () => {
    const carol = await person()
    expect((await carol.token.ping()).status).toBe('ok')
    expect((await carol.keyed.ping()).status).toBe('ok')
    await updateUser(t.ctx.db, carol.userId, { disabled: true })
    expect((await json('ping', { u: carol.email, p: carol.appPassword })).error.code).toBe(40)
    expect((await json('ping', { apiKey: carol.apiKey })).error.code).toBe(44)
  })
})

describe('ids and changes', () => {
  test('ids are stable across a restart and tag edits; edits and deletions show at once', async () => {
    const before = (await json('getSong', { ...as(alice), id: `tr-${single}` })).song
    // a second app on the same database and files: the same ids
    const { createApp } = await import('../app.ts')
    const again = createApp(t.ctx)
    const q = new URLSearchParams({ apiKey: alice.apiKey, f: 'json', id: `tr-${single}` })
    const res = await again.request(`/rest/getSong?${q}`)
    expect(((await res.json()) as Json)['subsonic-response'].song).toEqual(before)

    const edit = await alice.client.request(`/api/music/jobs/${single}`, { method: 'PATCH', json: { year: 1999, title: 'First Light (Edit)' } })
    expect(edit.status).toBe(200)
    const after = (await json('getSong', { ...as(alice), id: `tr-${single}` })).song
    expect(after).toMatchObject({ id: before.id, albumId: before.albumId, artistId: before.artistId, year: 1999, title: 'First Light (Edit)' })
    const renamed = join(jobDir(t.ctx.env.DATA_DIR, alice.userId, single), 'output', 'The Dawn - First Light (Edit).mp3')
    expect(after.size).toBe(readFileSync(renamed).length)
    const streamed = await rest('stream', { ...as(alice), id: `tr-${single}` })
    expect(new Uint8Array(await streamed.arrayBuffer())).toEqual(new Uint8Array(readFileSync(renamed)))

    const gone = await addFinishedJob(t, alice.userId, { title: 'Short Lived', artist: 'Temp', album: 'Temp' })
    expect((await json('getSong', { ...as(alice), id: `tr-${gone}` })).song.title).toBe('Short Lived')
    expect((await alice.client.request(`/api/music/jobs/${gone}/delete`, { method: 'DELETE' })).status).toBe(200)
    expect((await json('getSong', { ...as(alice), id: `tr-${gone}` })).error.code).toBe(70)
    expect((await json('getArtists', as(alice))).artists.index.flatMap((i: Json) => i.artist.map((a: Json) => a.name))).not.toContain('Temp')
  })
})

describe('a player, start to end', () => {
  test('sign in, artists, an album, a full sync, a ranged stream, scrobble, star and a playlist, for two users', async () => {
    for (const p of [alice, bob]) {
      for (const api of [p.token, p.keyed]) {
        expect((await api.ping()).status).toBe('ok')
        const { artists } = await api.getArtists()
        const first = artists.index![0]!.artist![0]!
        const { artist } = await api.getArtist({ id: first.id })
        const { album } = await api.getAlbum({ id: artist.album![0]!.id })
        expect(album.song!.length).toBeGreaterThan(0)
        const synced: string[] = []
        for (let offset = 0; ; offset += 500) {
          const page = (await api.search3({ query: '', songCount: 500, songOffset: offset, albumCount: 500, artistCount: 500 })).searchResult3.song ?? []
          synced.push(...page.map((s) => s.id))
          if (page.length < 500) break
        }
        expect(synced).toContain(album.song![0]!.id)
        const song = album.song![0]!
        const ranged = await fetch(`${base}rest/stream.view?${new URLSearchParams({ apiKey: p.apiKey, id: song.id })}`, { headers: { range: 'bytes=0-99' } })
        expect(ranged.status).toBe(206)
        expect((await ranged.arrayBuffer()).byteLength).toBe(100)
        await api.scrobble({ id: song.id })
        await api.star({ id: song.id })
        const { playlist } = await api.createPlaylist({ name: `Sync ${p.email}`, songId: [song.id] })
        expect((await api.getPlaylist({ id: playlist.id })).playlist.entry!.map((e) => e.id)).toEqual([song.id])
        await api.unstar({ id: song.id })
        await api.deletePlaylist({ id: playlist.id })
      }
    }
  })

  test('a job run by the pipeline (an uploaded WAV) is a song with what the file holds', async () => {
    const m = await testMedia()
    const res = await postForm(bob.client, '/api/music/jobs/create', musicForm({ title: 'Uploaded', artist: 'Bob', album: 'Bobs Album', year: '2020' }, { path: m.wav }))
    expect(res.status).toBe(201)
    const { id } = (await res.json()) as { id: string }
    const job = await waitForJob(bob.client, id, 60_000)
    expect(job.completed).not.toBeNull()
    const { song } = await bob.keyed.getSong({ id: `tr-${id}` })
    expect(song).toMatchObject({ title: 'Uploaded', artist: 'Bob', album: 'Bobs Album', year: 2020, contentType: 'audio/mpeg', duration: 3 })
    expect(song.replayGain?.trackGain).toBeNumber()
    const bytes = new Uint8Array(await (await bob.keyed.download({ id: song.id })).arrayBuffer())
    expect(bytes.length).toBe(song.size!)
    expect((await bob.keyed.getAlbum({ id: song.albumId! })).album.song!.map((s) => s.title).sort()).toEqual(['Bobs Song', 'Uploaded'])
  })
})
