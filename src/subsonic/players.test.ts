import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import NodeID3 from 'node-id3'
import { eq } from 'drizzle-orm'
import { jobDir } from '../music/files.ts'
import { musicJobs } from '../music/tables.ts'
import { rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SubsonicAPI } from 'subsonic-api'
import { type Client, createTestApp, serveTestApp, signUp, type TestApp } from '../../tests/support/app.ts'
import { userIdOf } from '../../tests/support/music.ts'
import { addFinishedJob } from '../../tests/support/subsonic.ts'

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely, field by field
type Json = any

// What players ask of a server beyond the basics (issue 35): the sync calls, the extensions,
// the index-based queue, bookmarks. The real OpenSubsonic client (npm subsonic-api) where it
// knows the method, raw HTTP for the rest.
setDefaultTimeout(60_000)

let t: TestApp
let server: ReturnType<typeof serveTestApp>
let base: string

interface Person {
  client: Client
  email: string
  userId: string
  apiKey: string
  api: SubsonicAPI
}
let alice: Person
let bob: Person
let morning: string[]
let bobSong: string

async function person(): Promise<Person> {
  const { client, email } = await signUp(t)
  const userId = await userIdOf(t, client)
  const tok = await client.post('/api/auth/tokens', { name: 'player' })
  const { token: apiKey } = (await tok.json()) as { token: string }
  return { client, email, userId, apiKey, api: new SubsonicAPI({ url: base, auth: { apiKey } }) }
}

async function json(p: Person, method: string, params: Record<string, string | string[]> = {}) {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries({ f: 'json', v: '1.16.1', c: 'test', apiKey: p.apiKey, ...params })) for (const x of [v].flat()) q.append(k, x)
  const res = await fetch(`${base}rest/${method}?${q}`)
  expect(res.status).toBe(200)
  return ((await res.json()) as { 'subsonic-response': Json })['subsonic-response']
}

beforeAll(async () => {
  t = await createTestApp()
  server = serveTestApp(t)
  base = `http://127.0.0.1:${server.port}/`
  alice = await person()
  bob = await person()
  const a = await addFinishedJob(t, alice.userId, { title: 'First Light', artist: 'The Dawn', album: 'Morning', year: 2001, trackNumber: 1 })
  const b = await addFinishedJob(t, alice.userId, { title: 'Second', artist: 'The Dawn', album: 'Morning', year: 2001, trackNumber: 2 })
  await addFinishedJob(t, alice.userId, { title: 'Live Set', artist: 'Bravo', album: 'Live', tracks: ['Intro', 'Finale'] })
  morning = [`tr-${a}`, `tr-${b}`]
  bobSong = `tr-${await addFinishedJob(t, bob.userId, { title: 'Bobs Song', artist: 'Bob', album: 'Bobs Album' })}`
}, 120_000)
afterAll(async () => {
  server?.stop(true)
  await t?.close()
})

describe('albums', () => {
  test('every album field agrees between getAlbumList2 (first answer, nothing measured yet) and getAlbum', async () => {
    const { albumList2 } = await alice.api.getAlbumList2({ type: 'alphabeticalByName', size: 10 })
    expect(albumList2.album!.length).toBe(2)
    for (const listed of albumList2.album!) {
      expect(listed.duration).toBeGreaterThan(0)
      const { album } = await alice.api.getAlbum({ id: listed.id })
      const { song, ...fields } = album
      expect(song!.length).toBe(listed.songCount)
      expect(fields).toEqual(listed)
    }
  })
})

describe('what players call while syncing', () => {
  test('getOpenSubsonicExtensions lists indexBasedQueue', async () => {
    const { openSubsonicExtensions } = await alice.api.getOpenSubsonicExtensions()
    expect(openSubsonicExtensions.map((e) => e.name)).toContain('indexBasedQueue')
  })

  test('getScanStatus and startScan: never scanning, the song count', async () => {
    expect((await alice.api.getScanStatus()).scanStatus).toEqual({ scanning: false, count: 4 })
    expect((await alice.api.startScan()).scanStatus).toEqual({ scanning: false, count: 4 })
    expect((await bob.api.getScanStatus()).scanStatus).toEqual({ scanning: false, count: 1 })
  })

  test("getArtistInfo2, getAlbumInfo2, getSimilarSongs2 answer empty for one's own ids and 70 for another's", async () => {
    const { artists } = await alice.api.getArtists()
    const dawn = artists.index!.flatMap((i) => i.artist ?? []).find((a) => a.name === 'The Dawn')!
    const info = await json(alice, 'getArtistInfo2', { id: dawn.id })
    expect(info.status).toBe('ok')
    expect(info.artistInfo2).toEqual({})
    const albumId = (await alice.api.getSong({ id: morning[0]! })).song.albumId!
    expect((await json(alice, 'getAlbumInfo2', { id: albumId })).albumInfo).toEqual({})
    expect((await json(alice, 'getSimilarSongs2', { id: dawn.id })).similarSongs2).toEqual({})
    for (const [method, id] of [
      ['getArtistInfo2', dawn.id],
      ['getAlbumInfo2', albumId],
      ['getSimilarSongs2', morning[0]!],
    ] as const)
      expect((await json(bob, method, { id })).error.code).toBe(70)
  })

  test("getTopSongs: the artist's songs, most played first", async () => {
    await alice.api.scrobble({ id: morning[1]! })
    const { topSongs } = await alice.api.getTopSongs({ artist: 'The Dawn' })
    expect(topSongs.song!.map((s) => s.id)).toEqual([morning[1]!, morning[0]!])
    expect((await json(bob, 'getTopSongs', { artist: 'The Dawn' })).topSongs).toEqual({})
  })

  test('getNowPlaying, getAlbumList, search2', async () => {
    expect((await alice.api.getNowPlaying()).nowPlaying).toEqual({})
    const list = (await alice.api.getAlbumList({ type: 'alphabeticalByName' })).albumList.album!
    expect(list.map((a) => [a.title, a.isDir])).toEqual([
      ['Live', true],
      ['Morning', true],
    ])
    const list2 = (await alice.api.getAlbumList2({ type: 'alphabeticalByName' })).albumList2.album!
    expect(list.map((a) => [a.id, a.duration, (a as Json).songCount])).toEqual(list2.map((a) => [a.id, a.duration, a.songCount]))
    const found = (await alice.api.search2({ query: 'dawn' })).searchResult2
    expect(found.artist!.map((a) => a.name)).toEqual(['The Dawn'])
    expect(found.album!.map((a) => a.title)).toEqual(['Morning'])
    expect(found.song!.map((s) => s.title).sort()).toEqual(['First Light', 'Second'])
    const all = (await alice.api.search2({ query: '' })).searchResult2
    expect(all.song!.length).toBe(4)
  })

  test('savePlayQueueByIndex and getPlayQueueByIndex: the same song twice, the index kept; the id-based calls agree', async () => {
    const ids = [morning[0]!, morning[1]!, morning[0]!]
    const saved = await json(alice, 'savePlayQueueByIndex', { id: ids, currentIndex: '2', position: '1500' })
    expect(saved.status).toBe('ok')
    const q = (await json(alice, 'getPlayQueueByIndex')).playQueueByIndex
    expect(q.currentIndex).toBe(2)
    expect(q.position).toBe(1500)
    expect(q.entry.map((e: Json) => e.id)).toEqual(ids)
    expect((await alice.api.getPlayQueue()).playQueue?.current).toBe(morning[0]!)
    expect((await json(alice, 'savePlayQueueByIndex', { id: ids, currentIndex: '3' })).error.code).toBe(70)
    expect((await json(alice, 'savePlayQueueByIndex', { id: ids })).error.code).toBe(10)
    expect((await json(alice, 'savePlayQueueByIndex', { id: [bobSong], currentIndex: '0' })).error.code).toBe(70)
    await alice.api.savePlayQueue({ id: [morning[1]!, morning[0]!], current: morning[0]!, position: 0 })
    expect((await json(alice, 'getPlayQueueByIndex')).playQueueByIndex.currentIndex).toBe(1)
    expect((await json(alice, 'savePlayQueueByIndex', {})).status).toBe('ok')
    expect((await json(alice, 'getPlayQueueByIndex')).playQueueByIndex).toBeUndefined()
  })
})

/** What ffprobe reads of an answer's bytes: codec, bit rate (bit/s) and duration (s). */
async function probe(bytes: ArrayBuffer) {
  const path = join(tmpdir(), `tunefeed-transcode-${crypto.randomUUID()}`)
  await Bun.write(path, bytes)
  try {
    const out = await new Response(
      Bun.spawn(['ffprobe', '-v', 'error', '-show_entries', 'stream=codec_name,bit_rate:format=duration,bit_rate', '-of', 'json', path], { stdout: 'pipe' }).stdout,
    ).json()
    return { codec: out.streams[0].codec_name as string, bitRate: Number(out.streams[0].bit_rate ?? out.format.bit_rate), duration: Number(out.format.duration) }
  } finally {
    rmSync(path, { force: true })
  }
}

const streamUrl = (p: Person, params: Record<string, string>) => `${base}rest/stream?${new URLSearchParams({ apiKey: p.apiKey, v: '1.16.1', c: 'test', ...params })}`

describe('stream, transcoded on the fly', () => {
  test('getOpenSubsonicExtensions lists transcodeOffset', async () => {
    expect((await alice.api.getOpenSubsonicExtensions()).openSubsonicExtensions.map((e) => e.name)).toContain('transcodeOffset')
  })

  test('maxBitRate=64: MP3 at 64 kbit/s; format=opus: Opus; timeOffset=1: the last second', async () => {
    const low = await fetch(streamUrl(alice, { id: morning[0]!, maxBitRate: '64' }))
    expect(low.status).toBe(200)
    expect(low.headers.get('content-type')).toBe('audio/mpeg')
    const lowInfo = await probe(await low.arrayBuffer())
    expect(lowInfo.codec).toBe('mp3')
    expect(Math.round(lowInfo.bitRate / 1000)).toBe(64)
    const opus = await fetch(streamUrl(alice, { id: morning[0]!, format: 'opus', maxBitRate: '48' }))
    expect(opus.headers.get('content-type')).toBe('audio/ogg')
    expect((await probe(await opus.arrayBuffer())).codec).toBe('opus')
    const late = await fetch(streamUrl(alice, { id: morning[0]!, timeOffset: '1' }))
    expect((await probe(await late.arrayBuffer())).duration).toBeCloseTo(1, 0)
  })

  test('no change (a rate above the stored one, raw) is the stored file with ranges; a bad format is an error', async () => {
    const stored = await fetch(streamUrl(alice, { id: morning[0]!, maxBitRate: '320' }))
    const raw = await fetch(streamUrl(alice, { id: morning[0]!, format: 'raw', maxBitRate: '64' }))
    for (const res of [stored, raw]) {
      expect(res.headers.get('accept-ranges')).toBe('bytes')
      expect(Math.round((await probe(await res.arrayBuffer())).bitRate / 1000)).toBe(128)
    }
    const bad = await fetch(`${streamUrl(alice, { id: morning[0]!, format: 'flac' })}&f=json`)
    expect(((await bad.json()) as Json)['subsonic-response'].error.code).toBe(0)
    expect((await json(bob, 'stream', { id: morning[0]!, maxBitRate: '64' })).error.code).toBe(70)
  })

  test('beyond TRANSCODE_CONCURRENCY the stored file is served as it is', async () => {
    const limit = t.ctx.env.TRANSCODE_CONCURRENCY
    ;(t.ctx.env as { TRANSCODE_CONCURRENCY: number }).TRANSCODE_CONCURRENCY = 0
    try {
      const res = await fetch(streamUrl(alice, { id: morning[0]!, maxBitRate: '64' }))
      expect(res.headers.get('accept-ranges')).toBe('bytes')
      expect(Math.round((await probe(await res.arrayBuffer())).bitRate / 1000)).toBe(128)
    } finally {
      ;(t.ctx.env as { TRANSCODE_CONCURRENCY: number }).TRANSCODE_CONCURRENCY = limit
    }
  })
})

describe('lyrics from the file tags', () => {
  test('getLyricsBySongId: synced lines (SYLT, ms) first, then the plain ones (USLT); getLyrics by artist and title', async () => {
    const jobId = await addFinishedJob(t, alice.userId, { title: 'Sung', artist: 'Singer', album: 'Words' })
    const [job] = await t.ctx.db.select({ outputFile: musicJobs.outputFile }).from(musicJobs).where(eq(musicJobs.id, jobId))
    const path = join(jobDir(t.ctx.env.DATA_DIR, alice.userId, jobId), job!.outputFile!)
    const written = NodeID3.update(
      {
        unsynchronisedLyrics: { language: 'eng', text: 'First line\nSecond \u0007line' },
        synchronisedLyrics: [
          {
            language: 'eng',
            timeStampFormat: 2,
            contentType: 1,
            synchronisedText: [
              { text: 'First line', timeStamp: 0 },
              { text: 'Second line', timeStamp: 1500 },
            ],
          },
        ],
      },
      path,
    )
    expect(written).toBe(true)
    expect((await alice.api.getOpenSubsonicExtensions()).openSubsonicExtensions.map((e) => e.name)).toContain('songLyrics')
    const { lyricsList } = (await alice.api.getLyricsBySongId({ id: `tr-${jobId}` })) as Json
    expect(lyricsList.structuredLyrics).toEqual([
      {
        lang: 'eng',
        synced: true,
        displayArtist: 'Singer',
        displayTitle: 'Sung',
        offset: 0,
        line: [
          { start: 0, value: 'First line' },
          { start: 1500, value: 'Second line' },
        ],
      },
      { lang: 'eng', synced: false, displayArtist: 'Singer', displayTitle: 'Sung', offset: 0, line: [{ value: 'First line' }, { value: 'Second line' }] },
    ])
    expect((await json(alice, 'getLyrics', { artist: 'singer', title: 'SUNG' })).lyrics).toEqual({ artist: 'Singer', title: 'Sung', value: 'First line\nSecond line' })
    expect((await json(bob, 'getLyrics', { artist: 'Singer', title: 'Sung' })).lyrics).toEqual({})
    expect((await json(bob, 'getLyricsBySongId', { id: `tr-${jobId}` })).error.code).toBe(70)
    expect(((await alice.api.getLyricsBySongId({ id: morning[0]! })) as Json).lyricsList.structuredLyrics).toBeUndefined()
  })
})
