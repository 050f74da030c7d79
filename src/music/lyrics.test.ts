import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import NodeID3 from 'node-id3'
import { SubsonicAPI } from 'subsonic-api'
import { serveTestApp } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { startLrclib, type Lrclib } from '../../tests/support/lrclib.ts'
import { listJobs, musicForm, postForm, startMusicTestApp, waitForJob, type MusicTestApp } from '../../tests/support/music.ts'
import type { MusicJob } from './schema.ts'

// Lyrics kept with a music job (issue 35, decision 266): the finished file's own tags, else one
// look-up at the LRCLIB stand-in (its real answer shape, every request recorded); a failing
// service leaves the job completed without lyrics; PATCH edits and removes them; a player reads
// them through the OpenSubsonic client (npm subsonic-api).
setDefaultTimeout(60_000)

const SYNCED = '[00:01.20] Morning comes\n[00:03.45] And the light\n[ar:ignored tag]'

let t: MusicTestApp
let lrclib: Lrclib
let server: ReturnType<typeof serveTestApp>

beforeAll(async () => {
  lrclib = startLrclib()
  lrclib.tracks.set('The Dawn|First Light', { instrumental: false, plainLyrics: 'Morning comes\nAnd the light', syncedLyrics: SYNCED })
  lrclib.tracks.set('The Dawn|Plain Song', { instrumental: false, plainLyrics: 'Only words\u0007 here', syncedLyrics: null })
  t = await startMusicTestApp({ LYRICS_URL: lrclib.url })
  server = serveTestApp(t)
}, 60_000)
afterAll(async () => {
  server?.stop(true)
  await t?.close()
  await lrclib?.stop()
})

async function run(title: string, path = t.files.mp3): Promise<MusicJob> {
  const res = await postForm(t.alice, '/api/music/jobs/create', musicForm({ title, artist: 'The Dawn', album: 'Morning' }, { path }))
  expect(res.status).toBe(201)
  const job = await waitForJob(t.alice, ((await res.json()) as { id: string }).id)
  expect(job.completed).toBeTruthy()
  return job
}

const lookupsFor = (title: string) => lrclib.requests.filter((u) => u.searchParams.get('track_name') === title)

// biome-ignore lint/suspicious/noExplicitAny: the client types lyricsList as a bare array; the answer is read field by field
type Json = any

/** getLyricsBySongId through the client: the answer's structuredLyrics (absent when none). */
async function structured(api: SubsonicAPI, id: string): Promise<Json[] | undefined> {
  return ((await api.getLyricsBySongId({ id })) as Json).lyricsList.structuredLyrics
}

async function player() {
  const tok = await t.alice.post('/api/auth/tokens', { name: 'player' })
  const { token } = (await tok.json()) as { token: string }
  return new SubsonicAPI({ url: `http://127.0.0.1:${server.port}/`, auth: { apiKey: token } })
}

describe('lyrics when a track finishes', () => {
  test('looked up once by artist, title, album and duration; synced lines served with ms times', async () => {
    const job = await run('First Light')
    expect(job.lyrics).toEqual({ synced: true, source: 'lookup' })
    const [req, ...more] = lookupsFor('First Light')
    expect(more).toEqual([])
    expect(req!.pathname).toBe('/api/get')
    expect(req!.searchParams.get('artist_name')).toBe('The Dawn')
    expect(req!.searchParams.get('album_name')).toBe('Morning')
    expect(Number(req!.searchParams.get('duration'))).toBeGreaterThan(0)
    const api = await player()
    expect(await structured(api, `tr-${job.id}`)).toEqual([
      {
        lang: 'und',
        synced: true,
        displayArtist: 'The Dawn',
        displayTitle: 'First Light',
        offset: 0,
        line: [
          { start: 1200, value: 'Morning comes' },
          { start: 3450, value: 'And the light' },
        ],
      },
    ])
    const { lyrics } = await api.getLyrics({ artist: 'The Dawn', title: 'First Light' })
    expect(lyrics.value).toBe('Morning comes\nAnd the light')
  })

  test('plain lyrics only: kept unsynced, control characters removed, no start times', async () => {
    const job = await run('Plain Song')
    expect(job.lyrics).toEqual({ synced: false, source: 'lookup' })
    expect((await structured(await player(), `tr-${job.id}`))![0].line).toEqual([{ value: 'Only words here' }])
  })

  test('not found at the service: null', async () => {
    const job = await run('Unknown Song')
    expect(job.lyrics).toBeNull()
    expect(lookupsFor('Unknown Song').length).toBe(1)
  })

  test("an upload with USLT tags: the file's own lyrics, and no look-up", async () => {
    const tagged = join(t.files.dir, 'with-lyrics.mp3')
    copyFileSync(t.files.mp3, tagged)
    expect(NodeID3.update({ unsynchronisedLyrics: { language: 'eng', text: 'Own words\nSecond line' } }, tagged)).toBe(true)
    const job = await run('Tagged Song', tagged)
    expect(job.lyrics).toEqual({ synced: false, source: 'file' })
    expect(lookupsFor('Tagged Song')).toEqual([])
    expect((await structured(await player(), `tr-${job.id}`))![0].line).toEqual([{ value: 'Own words' }, { value: 'Second line' }])
  })

  test('a failing service: the job completes with lyrics null', async () => {
    lrclib.failWith = 500
    try {
      const job = await run('First Light')
      expect(job.failed).toBeNull()
      expect(job.lyrics).toBeNull()
    } finally {
      lrclib.failWith = null
    }
  })
})

test('LYRICS_URL=off: no look-up, no lyrics', async () => {
  const off = await startMusicTestApp({ LYRICS_URL: 'off' })
  try {
    const before = lrclib.requests.length
    const res = await postForm(off.alice, '/api/music/jobs/create', musicForm({ title: 'First Light', artist: 'The Dawn', album: 'Morning' }, { path: off.files.mp3 }))
    const job = await waitForJob(off.alice, ((await res.json()) as { id: string }).id)
    expect(job.completed).toBeTruthy()
    expect(job.lyrics).toBeNull()
    expect(lrclib.requests.length).toBe(before)
  } finally {
    await off.close()
  }
})

describe('PATCH /api/music/jobs/{id} lyrics', () => {
  test('LRC edits them (source edited, synced), plain text too, an empty string removes them; tags stay', async () => {
    const job = await run('Edited Song')
    const patch = (json: unknown) => t.alice.request(`/api/music/jobs/${job.id}`, { method: 'PATCH', json })
    let res = await patch({ lyrics: '[00:00.50]Hello\n[00:01.00]World' })
    expect(res.status).toBe(200)
    expect(((await res.json()) as MusicJob).lyrics).toEqual({ synced: true, source: 'edited' })
    const api = await player()
    expect((await structured(api, `tr-${job.id}`))![0].line).toEqual([
      { start: 500, value: 'Hello' },
      { start: 1000, value: 'World' },
    ])
    res = await patch({ lyrics: 'Just words', title: 'Renamed' })
    expect(res.status).toBe(200)
    const edited = (await res.json()) as MusicJob
    expect(edited.title).toBe('Renamed')
    expect(edited.lyrics).toEqual({ synced: false, source: 'edited' })
    res = await patch({ lyrics: '' })
    expect(((await res.json()) as MusicJob).lyrics).toBeNull()
    expect((await listJobs(t.alice)).jobs.find((j) => j.id === job.id)!.lyrics).toBeNull()
    expect((await structured(api, `tr-${job.id}`)) ?? []).toEqual([])
    await expectError(await patch({ lyrics: 'bad\u0000' }), 422)
  })
})
