import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { TestApp } from '../../tests/support/app.ts'
import { musicForm, postForm, waitForJob } from '../../tests/support/music.ts'
import { testMedia } from '../../tests/support/media.ts'
import { addFinishedJob } from '../../tests/support/subsonic.ts'
import { updateUser } from '../admin/users.ts'
import { jobDir } from '../music/files.ts'
import { albumKeyOf, md5 } from './ids.ts'
import { type Json, type Person, type SubsonicLibrary, startSubsonicLibrary } from '../../tests/support/subsonic-library.ts'

// The Subsonic API end to end, part two: stars, plays, playlists, ownership, ids, a whole player session (the library and the two users: tests/support/subsonic-library.ts).
setDefaultTimeout(60_000)

let lib: SubsonicLibrary
let t: TestApp
let base: string
let alice: Person
let bob: Person
let single: string
let split: string
let other: string
const rest = (method: string, params: Record<string, string | string[]>, init: RequestInit = {}) => lib.rest(method, params, init)
const json = (method: string, params: Record<string, string | string[]>): Promise<Json> => lib.json(method, params)
const as = (p: Person) => ({ apiKey: p.apiKey })
const person = () => lib.person()

beforeAll(async () => {
  lib = await startSubsonicLibrary()
  ;({ t, base, alice, bob, single, split, other } = lib)
}, 120_000)
afterAll(() => lib?.close())

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
