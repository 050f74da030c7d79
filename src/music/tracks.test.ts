import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseBuffer } from 'music-metadata'
import { type Client, createTestApp, signUp, type TestApp } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import { PLAYLIST_ITEMS, startMediaServer, TEST_CHAPTERS, testMedia, type MediaServer } from '../../tests/support/media.ts'
import { listJobs, musicForm, postForm, userIdOf, waitForJob, waitForWebdav } from '../../tests/support/music.ts'
import { startWebdavServer, type TestWebdav } from '../../tests/support/webdav.ts'
import { insertMusicJob } from './queries.ts'
import type { MusicJob } from './schema.ts'

// Year, track number and ReplayGain tags, chapter splits, playlists and tag
// edits, end to end: Debian's yt-dlp and ffmpeg, a media server and a WebDAV
// server on 127.0.0.1, the test app's worker.
setDefaultTimeout(60_000)

let t: TestApp
let media: MediaServer
let dav: TestWebdav
let alice: Client
let bob: Client

beforeAll(async () => {
  ;[media, dav] = await Promise.all([startMediaServer(), startWebdavServer()])
  t = await createTestApp({ env: { FETCH_ALLOW_HOSTS: '127.0.0.1' } })
  ;({ client: alice } = await signUp(t))
  ;({ client: bob } = await signUp(t))
  await alice.post('/api/webdav', { username: dav.username, password: dav.password, url: dav.url })
}, 60_000)
afterAll(async () => {
  await t?.close()
  await Promise.all([media?.stop(), dav?.stop()])
})

async function create(fields: Record<string, string>, client = alice) {
  const res = await postForm(client, '/api/music/jobs/create', musicForm(fields))
  expect(res.status).toBe(201)
  return (await res.json()) as { id: string; ids?: string[] }
}

async function mp3(client: Client, url: string) {
  const res = await client.request(url)
  expect(res.status).toBe(200)
  const bytes = new Uint8Array(await res.arrayBuffer())
  return { bytes, meta: await parseBuffer(bytes, { mimeType: 'audio/mpeg' }, { duration: true }) }
}

let single: MusicJob
let splitJob: MusicJob

describe('tags of a finished MP3', () => {
  test('year (TYER/TDRC), track number (TRCK) and ReplayGain 2.0 (TXXX) are written and read back', async () => {
    const { id } = await create({
      video_url: `${media.url}/page.html`,
      title: 'Tagged',
      artist: 'Tester',
      album: 'Album',
      year: '1999',
      track_number: '4',
    })
    single = await waitForJob(alice, id)
    expect(single.failed).toBeNull()
    expect(single).toMatchObject({ trackNumber: 4, year: 1999, tracks: [], notice: null })
    const { meta } = await mp3(alice, single.downloadUrl!)
    expect(meta.common.year).toBe(1999)
    expect(meta.common.track).toEqual({ no: 4, of: null })
    const native = Object.fromEntries((meta.native['ID3v2.3'] ?? []).map((f) => [f.id, f.value]))
    expect(native.TYER).toBe('1999')
    expect(native.TRCK).toBe('4')
    // a 330 Hz tone from the generated video: gain against -18 LUFS, linear sample peak
    const gain = meta.common.replaygain_track_gain!
    const peak = meta.common.replaygain_track_peak!
    expect(Number.isFinite(gain.dB)).toBe(true)
    expect(peak.ratio).toBeGreaterThan(0)
    expect(peak.ratio).toBeLessThanOrEqual(1.0001)
    const txxx = (meta.native['ID3v2.3'] ?? []).filter((f) => f.id.startsWith('TXXX:')).map((f) => f.id)
    expect(txxx.sort()).toEqual(['TXXX:REPLAYGAIN_TRACK_GAIN', 'TXXX:REPLAYGAIN_TRACK_PEAK'])
  })
})

describe('chapters', () => {
  test('split: one tagged track per chapter, durations within 0.5 s, a ZIP of all, each on WebDAV', async () => {
    const { id } = await create({
      video_url: `${media.url}/album.html`,
      title: 'Whole Album',
      artist: 'Test Band',
      album: 'Whole Album',
      year: '2020',
      split_chapters: 'true',
    })
    const job = await waitForJob(alice, id)
    expect(job.failed).toBeNull()
    expect((await waitForWebdav(alice, id)).webdav).toBe('uploaded')
    splitJob = (await listJobs(alice)).jobs.find((j) => j.id === id)!
    expect(job.tracks.map((tr) => [tr.trackNumber, tr.title, tr.downloadFilename])).toEqual(
      TEST_CHAPTERS.map((c, i) => [i + 1, c.title, `0${i + 1} Test Band - ${c.title}.mp3`]),
    )
    for (const [i, track] of job.tracks.entries()) {
      const { bytes, meta } = await mp3(alice, track.downloadUrl)
      const chapter = TEST_CHAPTERS[i]!
      expect(meta.common.title).toBe(chapter.title)
      expect(meta.common.artist).toBe('Test Band')
      expect(meta.common.album).toBe('Whole Album')
      expect(meta.common.year).toBe(2020)
      expect(meta.common.track).toEqual({ no: i + 1, of: TEST_CHAPTERS.length })
      expect(meta.common.replaygain_track_gain).toBeDefined()
      expect(Math.abs(meta.format.duration! - (chapter.end - chapter.start))).toBeLessThanOrEqual(0.5)
      expect(dav.readFile(track.downloadFilename).equals(Buffer.from(bytes))).toBe(true)
    }
    // the job's download is the ZIP of the tracks
    expect(job.downloadFilename).toBe('Test Band - Whole Album.zip')
    const zip = await alice.request(job.downloadUrl!)
    expect(zip.headers.get('content-type')).toBe('application/zip')
    const dir = mkdtempSync(join(tmpdir(), 'tunefeed-zip-'))
    writeFileSync(join(dir, 'all.zip'), new Uint8Array(await zip.arrayBuffer()))
    const listing = Bun.spawnSync(['unzip', '-Z1', join(dir, 'all.zip')]).stdout.toString().trim().split('\n')
    expect(listing).toEqual(job.tracks.map((tr) => tr.downloadFilename))
    expect(Bun.spawnSync(['unzip', '-tq', join(dir, 'all.zip')]).exitCode).toBe(0)
  })

  test('split asked of a source without chapters: one track, and the job says so', async () => {
    const { id } = await create({ video_url: `${media.url}/audio.mp3`, title: 'T', artist: 'A', album: 'B', split_chapters: 'true' })
    const job = await waitForJob(alice, id)
    expect(job.failed).toBeNull()
    expect(job.tracks).toEqual([])
    expect(job.notice).toBe('No chapters found: converted as one track.')
  })
})

describe('playlists', () => {
  test('playlist=true: one job per entry, album from the playlist title, numbered by position, tags from each title', async () => {
    const { id, ids } = await create({ video_url: `${media.url}/playlist.rss`, playlist: 'true', artist: 'Fallback Artist' })
    expect(ids).toHaveLength(PLAYLIST_ITEMS.length)
    expect(id).toBe(ids![0]!)
    const jobs = await Promise.all(ids!.map((jobId) => waitForJob(alice, jobId)))
    expect(jobs.map((j) => [j.title, j.artist, j.album, j.trackNumber, j.videoUrl])).toEqual([
      ['One', 'First Artist', 'Test Playlist', 1, `${media.url}/audio.mp3`],
      ['Two', 'Second Artist', 'Test Playlist', 2, `${media.url}/audio.wav`],
      ['Three', 'Third Artist', 'Test Playlist', 3, `${media.url}/audio.mp3?3`],
    ])
    for (const job of jobs) expect(job.failed).toBeNull()
    const { meta } = await mp3(alice, jobs[1]!.downloadUrl!)
    expect(meta.common.track).toEqual({ no: 2, of: 3 })
    expect(meta.common.album).toBe('Test Playlist')
  })

  test('playlist=true with a link that is not a playlist, or with a file: 422', async () => {
    await expectError(
      postForm(alice, '/api/music/jobs/create', musicForm({ video_url: `${media.url}/page.html`, playlist: 'true' })),
      422,
      'playlist: The link is not a playlist.',
    )
    await expectError(
      postForm(alice, '/api/music/jobs/create', musicForm({ video_url: `${media.url}/playlist.rss`, playlist: 'maybe', title: 'T', artist: 'A', album: 'B' })),
      422,
      /^playlist: /,
    )
  })

  test('bad new fields: 422 naming the field', async () => {
    const base = { video_url: `${media.url}/page.html`, title: 'T', artist: 'A', album: 'B' }
    const bad = (fields: Record<string, string>) => postForm(alice, '/api/music/jobs/create', musicForm({ ...base, ...fields }))
    await expectError(bad({ track_number: '0' }), 422, /^track_number: /)
    await expectError(bad({ track_number: 'two' }), 422, /^track_number: /)
    await expectError(bad({ year: '99' }), 422, /^year: /)
    await expectError(bad({ split_chapters: 'yes please' }), 422, /^split_chapters: /)
    await expectError(bad({ remove_segments: 'music_offtopic,ads' }), 422, /^remove_segments: /)
  })
})

describe('PATCH /jobs/{id}: editing the tags of a finished job', () => {
  test('tags rewritten in place (ReplayGain kept), renamed after them, and WebDAV gets the new file', async () => {
    const before = await mp3(alice, single.downloadUrl!)
    const res = await alice.request(`/api/music/jobs/${single.id}`, {
      method: 'PATCH',
      json: { title: 'Renamed', artist: 'New Artist', year: 2001, trackNumber: 7, grouping: 'Group' },
    })
    expect(res.status).toBe(200)
    const job = (await res.json()) as MusicJob
    expect(job).toMatchObject({ title: 'Renamed', artist: 'New Artist', album: 'Album', year: 2001, trackNumber: 7, grouping: 'Group' })
    expect(job.downloadFilename).toBe('New Artist - Renamed.mp3')
    const after = await mp3(alice, job.downloadUrl!)
    expect(after.meta.common).toMatchObject({ title: 'Renamed', artist: 'New Artist', album: 'Album', year: 2001, grouping: 'Group' })
    expect(after.meta.common.track.no).toBe(7)
    expect(after.meta.common.replaygain_track_gain).toEqual(before.meta.common.replaygain_track_gain)
    // the audio itself was not made again
    expect(after.meta.format.duration).toBe(before.meta.format.duration)
    // WebDAV gets the renamed file on its own: null until then
    expect(job.webdav).toBeNull()
    expect(await waitForWebdav(alice, job.id)).toEqual({ ...job, webdav: 'uploaded' })
    expect(dav.listFiles()).toContain('New Artist - Renamed.mp3')
    expect(dav.listFiles()).not.toContain('Tester - Tagged.mp3')
    expect(dav.readFile('New Artist - Renamed.mp3').equals(Buffer.from(after.bytes))).toBe(true)
    // the list shows the same
    expect((await listJobs(alice)).jobs.find((j) => j.id === single.id)).toEqual({ ...job, webdav: 'uploaded' })
  })

  test('a split job: every track retagged and renamed, the ZIP rebuilt; a cover from a URL, then none', async () => {
    const patch = (json: unknown) => alice.request(`/api/music/jobs/${splitJob.id}`, { method: 'PATCH', json })
    const res = await patch({ artist: 'Renamed Band', album: 'Other Album', artworkUrl: `${media.url}/cover.png` })
    expect(res.status).toBe(200)
    const job = (await res.json()) as MusicJob
    expect(job.downloadFilename).toBe('Renamed Band - Other Album.zip')
    expect(job.tracks.map((tr) => tr.downloadFilename)).toEqual(TEST_CHAPTERS.map((c, i) => `0${i + 1} Renamed Band - ${c.title}.mp3`))
    const png = readFileSync((await testMedia()).png)
    // WebDAV gets the renamed tracks on its own
    expect((await waitForWebdav(alice, job.id)).webdav).toBe('uploaded')
    for (const [i, track] of job.tracks.entries()) {
      const { bytes, meta } = await mp3(alice, track.downloadUrl)
      expect(meta.common).toMatchObject({ title: TEST_CHAPTERS[i]!.title, artist: 'Renamed Band', album: 'Other Album', year: 2020 })
      expect(meta.common.track).toEqual({ no: i + 1, of: TEST_CHAPTERS.length })
      expect(Buffer.from(meta.common.picture![0]!.data).equals(png)).toBe(true)
      expect(dav.readFile(track.downloadFilename).equals(Buffer.from(bytes))).toBe(true)
      expect(dav.listFiles()).not.toContain(`0${i + 1} Test Band - ${TEST_CHAPTERS[i]!.title}.mp3`)
    }
    const zip = await alice.request(job.downloadUrl!)
    expect(zip.headers.get('content-disposition')).toContain('Renamed Band - Other Album.zip')
    const noCover = (await (await patch({ artworkUrl: null })).json()) as MusicJob
    expect(noCover.artworkUrl).toBeNull()
    expect((await mp3(alice, noCover.tracks[0]!.downloadUrl)).meta.common.picture).toBeUndefined()
  })

  test('409 while the job is not finished; 422 for bad fields; 404 for another user, who can do nothing to the job', async () => {
    const unfinished = await insertMusicJob(t.ctx.db, {
      userId: await userIdOf(t, alice),
      videoUrl: `${media.url}/page.html`,
      title: 'Waiting',
      artist: 'A',
      album: 'B',
    })
    const patch = (id: string, json: unknown, client = alice) => client.request(`/api/music/jobs/${id}`, { method: 'PATCH', json })
    await expectError(patch(unfinished.id, { title: 'x' }), 409, 'Job is not finished.')
    await expectError(patch(single.id, { year: 'soon' }), 422, /^year: /)
    await expectError(patch(single.id, { title: '' }), 422, /^title: /)
    await expectError(patch(single.id, { colour: 'red' }), 422)
    await expectError(patch(single.id, { title: 'Mine now' }, bob), 404, 'Job not found.')
    await expectError(bob.get(`/api/music/jobs/${single.id}/download`), 404, 'Job not found.')
    await expectError(bob.get(`/api/music/jobs/${single.id}/tracks/1/download`), 404, 'Job not found.')
    await expectError(alice.get(`/api/music/jobs/${single.id}/tracks/1/download`), 404, 'File not found.')
    expect((await listJobs(bob)).jobs).toEqual([])
    expect((await listJobs(alice)).jobs.find((j) => j.id === single.id)!.title).toBe('Renamed')
  })
})
