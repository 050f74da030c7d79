import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { SubsonicAPI } from 'subsonic-api'
import { signUp, type TestApp } from '../../tests/support/app.ts'
import { jobDir } from '../music/files.ts'
import { imageSize } from '../music/square.ts'
import { albumKeyOf, md5 } from './ids.ts'
import { type Json, type Person, type SubsonicLibrary, startSubsonicLibrary } from '../../tests/support/subsonic-library.ts'

// The Subsonic API end to end, part one: app passwords, sign-in, browsing, streaming (the library and the two users: tests/support/subsonic-library.ts).
setDefaultTimeout(60_000)

let lib: SubsonicLibrary
let t: TestApp
let base: string
let alice: Person
let single: string
let split: string
const rest = (method: string, params: Record<string, string | string[]>, init: RequestInit = {}) => lib.rest(method, params, init)
const json = (method: string, params: Record<string, string | string[]>): Promise<Json> => lib.json(method, params)
const as = (p: Person) => ({ apiKey: p.apiKey })

beforeAll(async () => {
  lib = await startSubsonicLibrary()
  ;({ t, base, alice, single, split } = lib)
}, 120_000)
afterAll(() => lib?.close())

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
