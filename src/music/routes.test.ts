import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import NodeID3 from 'node-id3'
import { Client, signUp, type TestApp } from '../../tests/support/app.ts'
import { expectError } from '../../tests/support/http.ts'
import type { MediaServer, TestMedia } from '../../tests/support/media.ts'
import { listJobs, musicForm, postForm, startMusicTestApp, userIdOf, waitForJob } from '../../tests/support/music.ts'

// Every music route: 401 first, then 4xx {detail} for bad input (never 500),
// and the happy paths of the lookups (grouping, artwork, tags).
setDefaultTimeout(30_000)

let t: TestApp
let media: MediaServer
let files: TestMedia
let alice: Client
const fields = { title: 'Title', artist: 'Artist', album: 'Album' }

beforeAll(async () => {
  ;({ media, files, alice } = t = await startMusicTestApp({ MAX_UPLOAD_BYTES: String(2 * 1024 * 1024) }))
}, 60_000)
afterAll(() => t?.close())

const create = (form: FormData, client = alice) => postForm(client, '/api/music/jobs/create', form)

describe('music routes refuse anonymous callers before anything else', () => {
  test.each([
    ['POST', '/api/music/jobs/create'],
    ['GET', '/api/music/jobs/list?per_page=999'],
    ['DELETE', '/api/music/jobs/00000000-0000-0000-0000-000000000000/delete'],
    ['GET', '/api/music/jobs/00000000-0000-0000-0000-000000000000/download'],
    ['GET', '/api/music/jobs/00000000-0000-0000-0000-000000000000/upload'],
    ['GET', '/api/music/jobs/00000000-0000-0000-0000-000000000000/artwork'],
    ['GET', '/api/music/jobs/listen'],
    ['GET', '/api/music/grouping?video_url=nope'],
    ['GET', '/api/music/artwork?artwork_url=nope'],
    ['POST', '/api/music/tags'],
  ])('%s %s → 401', async (method, path) => {
    const res = await new Client(t).request(path, { method, body: method === 'POST' ? musicForm(fields) : undefined })
    await expectError(res, 401, 'Unauthorized')
  })
})

describe('POST /jobs/create validation', () => {
  test('file and video_url together', async () => {
    await expectError(
      create(musicForm({ ...fields, video_url: `${media.url}/audio.mp3` }, { path: files.mp3 })),
      422,
      "'file' and 'video_url' cannot both be defined.",
    )
  })

  test('neither file nor video_url (an empty browser file part counts as none)', async () => {
    await expectError(create(musicForm(fields)), 422, "'file' or 'video_url' must be defined.")
    const form = musicForm(fields)
    form.append('file', new Blob([]), '')
    await expectError(create(form), 422, "'file' or 'video_url' must be defined.")
  })

  test('the file type is judged by its bytes, not its name or declared type', async () => {
    const dir = t.ctx.env.DATA_DIR
    const fake = join(dir, 'fake.mp3')
    writeFileSync(fake, 'this is not audio at all, only text pretending')
    await expectError(create(musicForm(fields, { path: fake, type: 'audio/mpeg' })), 422, 'File is incorrect format.')
    // RIFF but not WAVE (a WebP picture), and an empty file with a name
    const webp = join(dir, 'fake.wav')
    writeFileSync(webp, Buffer.concat([Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 '), Buffer.alloc(16)]))
    await expectError(create(musicForm(fields, { path: webp, type: 'audio/wav' })), 422, 'File is incorrect format.')
    const empty = join(dir, 'empty.mp3')
    writeFileSync(empty, '')
    await expectError(create(musicForm(fields, { path: empty })), 422, 'File is incorrect format.')
    // real audio with a misleading name and type is accepted
    const renamed = join(dir, 'song.txt')
    copyFileSync(files.wav, renamed)
    const ok = await create(musicForm(fields, { path: renamed, type: 'text/plain' }))
    expect(ok.status).toBe(201)
  })

  test('required tags name their field', async () => {
    const detail = await expectError(create(musicForm({ title: ' ', artist: 'A' }, { path: files.mp3 })), 422)
    expect(detail).toContain('title: Required')
    expect(detail).toContain('album: Required')
  })

  test.each([
    ['video_url', 'not a link', /video_url: Invalid Link/],
    ['video_url', 'ftp://127.0.0.1/a.mp3', /video_url: Invalid Link/],
    ['video_url', 'javascript:alert(1)', /video_url: Invalid Link/],
    ['artwork_url', 'nope', /artwork_url: Invalid Link/],
    ['artwork_url', 'data:text/plain;base64,aGVsbG8=', /artwork_url: Invalid Link/],
    ['artwork_url', 'data:image/png;base64,aGVsbG8=', /artwork_url: not an image/],
  ])('%s %s → 422', async (field, value, detail) => {
    const form = field === 'video_url' ? musicForm({ ...fields, video_url: value }) : musicForm({ ...fields, artwork_url: value }, { path: files.mp3 })
    await expectError(create(form), 422, detail)
  })

  test('not multipart → 415; a broken multipart body → 400', async () => {
    await expectError(alice.post('/api/music/jobs/create', fields), 415)
    const res = await alice.request('/api/music/jobs/create', {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="title"\r\n\r\nunterminated',
    })
    await expectError(res, 400, /Malformed multipart body/)
  })

  test('past MAX_UPLOAD_BYTES → 413, whether the length is declared or streamed', async () => {
    const big = join(t.ctx.env.DATA_DIR, 'big.wav')
    writeFileSync(big, Buffer.concat([readFileSync(files.wav).subarray(0, 44), Buffer.alloc(3 * 1024 * 1024)]))
    await expectError(create(musicForm(fields, { path: big })), 413)
    // chunked: no Content-Length, so the limit is enforced while streaming
    const body = new Response(musicForm(fields, { path: big }))
    const type = body.headers.get('content-type')!
    const stream = body.body!
    const res = await alice.request('/api/music/jobs/create', { method: 'POST', headers: { 'content-type': type }, body: stream })
    await expectError(res, 413)
    // a declared length past the allowance is refused before anything is read
    const declared = await alice.request('/api/music/jobs/create', {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(1024 * 1024 * 1024) },
      body: '--x--',
    })
    await expectError(declared, 413)
    // nothing of the refused uploads is left behind: only accepted jobs have folders
    const ids = new Set((await listJobs(alice)).jobs.map((j) => j.id))
    const folders = readdirSync(join(t.ctx.env.DATA_DIR, 'music', await userIdOf(t, alice)))
    expect(folders.filter((f) => !ids.has(f))).toEqual([])
  })
})

describe('GET /jobs/list', () => {
  test('pages newest first, totalPages 0 when empty, per_page bounded', async () => {
    const { client } = await signUp(t)
    expect(await listJobs(client)).toEqual({ jobs: [], totalPages: 0 })
    const ids: string[] = []
    for (const title of ['one', 'two', 'three']) {
      const res = await create(musicForm({ ...fields, title }, { path: files.mp3 }), client)
      ids.push(((await res.json()) as { id: string }).id)
    }
    const first = await (await client.get('/api/music/jobs/list?page=1&per_page=2')).json()
    expect(first.totalPages).toBe(2)
    expect(first.jobs.map((j: { title: string }) => j.title)).toEqual(['three', 'two'])
    const second = await (await client.get('/api/music/jobs/list?page=2&per_page=2')).json()
    expect(second.jobs.map((j: { title: string }) => j.title)).toEqual(['one'])
    const job = second.jobs[0]
    expect(Object.keys(job).sort()).toEqual(
      [
        'id', 'videoUrl', 'originalFilename', 'filenameUrl', 'artworkUrl', 'title', 'artist', 'album', 'grouping',
        'completed', 'failed', 'downloadUrl', 'downloadFilename', 'createdAt', 'progress', 'webdav', 'error', 'errorKind',
        'trackNumber', 'year', 'tracks', 'notice', 'waiting', 'lyrics',
      ].sort(),
    )
    expect(job.createdAt).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/)
    // default page size is the spec's 5
    expect((await (await client.get('/api/music/jobs/list')).json()).jobs).toHaveLength(3)
    for (const id of ids) await waitForJob(client, id)
  })

  test.each(['per_page=51', 'per_page=0', 'page=0', 'page=abc', 'per_page=1.5'])('%s → 422', async (q) => {
    await expectError(alice.get(`/api/music/jobs/list?${q}`), 422, /page/)
  })
})

describe('per-job routes', () => {
  test.each(['00000000-0000-0000-0000-000000000000', 'not-a-uuid', '..%2F..%2Fetc'])('unknown job %s → 404', async (id) => {
    await expectError(alice.delete(`/api/music/jobs/${id}/delete`), 404, 'Job not found.')
    await expectError(alice.get(`/api/music/jobs/${id}/download`), 404, 'Job not found.')
  })

  test('an unfinished or file-less job has nothing to download yet', async () => {
    const res = await create(musicForm({ ...fields, video_url: `${media.url}/text.txt` }))
    const { id } = (await res.json()) as { id: string }
    await expectError(alice.get(`/api/music/jobs/${id}/upload`), 404, 'File not found.')
    await expectError(alice.get(`/api/music/jobs/${id}/artwork`), 404, 'File not found.')
    await waitForJob(alice, id)
    await expectError(alice.get(`/api/music/jobs/${id}/download`), 404, 'File not found.')
  })

  test('the listen socket wants an upgrade', async () => {
    await expectError(alice.get('/api/music/jobs/listen'), 426)
  })
})

describe('GET /grouping', () => {
  test('the uploader from the page metadata (yt-dlp -J)', async () => {
    const res = await alice.get(`/api/music/grouping?video_url=${encodeURIComponent(`${media.url}/page.html`)}`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ grouping: 'Test Uploader' })
  })

  test('no uploader or no video → 400; a bad URL → 422', async () => {
    await expectError(alice.get(`/api/music/grouping?video_url=${encodeURIComponent(`${media.url}/audio.mp3`)}`), 400, 'Unable to get grouping.')
    await expectError(alice.get(`/api/music/grouping?video_url=${encodeURIComponent(`${media.url}/missing`)}`), 400, 'Unable to get grouping.')
    await expectError(alice.get('/api/music/grouping?video_url=nope'), 422, /video_url/)
    await expectError(alice.get('/api/music/grouping'), 422, /video_url/)
  })
})

describe('GET /artwork', () => {
  const resolve = (url: string) => alice.get(`/api/music/artwork?artwork_url=${encodeURIComponent(url)}`)

  test('an image URL as is; pages resolved to og:image, then twitter:image; SoundCloud at 500x500', async () => {
    expect(await (await resolve(`${media.url}/cover.jpg`)).json()).toEqual({ resolvedArtworkUrl: `${media.url}/cover.jpg` })
    // no image extension: fetched, and an image answer keeps the URL
    const viaRedirect = `${media.url}/redirect?to=/cover.png`
    expect(await (await resolve(viaRedirect)).json()).toEqual({ resolvedArtworkUrl: viaRedirect })
    expect(await (await resolve(`${media.url}/og.html`)).json()).toEqual({ resolvedArtworkUrl: `${media.url}/cover.png` })
    expect(await (await resolve(`${media.url}/twitter.html`)).json()).toEqual({ resolvedArtworkUrl: `${media.url}/cover.jpg` })
    expect(await (await resolve(`${media.url}/soundcloud.html`)).json()).toEqual({
      resolvedArtworkUrl: 'https://i1.sndcdn.com/artworks-000123-abcdef-t500x500.jpg',
    })
  })

  test('no cover → 400; a bad URL → 422', async () => {
    await expectError(resolve(`${media.url}/nocover.html`), 400, 'Unable to get artwork.')
    await expectError(resolve(`${media.url}/text.txt`), 400, 'Unable to get artwork.')
    await expectError(resolve(`${media.url}/missing`), 400, 'Unable to get artwork.')
    await expectError(resolve('nope'), 422, /artwork_url/)
    await expectError(alice.get('/api/music/artwork'), 422, /artwork_url/)
  })
})

describe('POST /tags', () => {
  test('reads title, artist, album, grouping and the cover as a data URI', async () => {
    const tagged = join(t.ctx.env.DATA_DIR, 'tagged.mp3')
    copyFileSync(files.mp3, tagged)
    const cover = readFileSync(files.jpg)
    NodeID3.write(
      {
        title: 'Tagged',
        artist: 'Someone',
        album: 'Record',
        contentGroup: 'Label',
        image: { mime: 'image/jpeg', type: { id: 3, name: 'front cover' }, description: '', imageBuffer: cover },
      },
      tagged,
    )
    const res = await postForm(alice, '/api/music/tags', musicForm({}, { path: tagged }))
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      title: 'Tagged',
      artist: 'Someone',
      album: 'Record',
      grouping: 'Label',
      artworkUrl: `data:image/jpeg;base64,${cover.toString('base64')}`,
    })
  })

  test("a WAV's RIFF INFO year (ICRD) and track are read, for the form's Year and Track number", async () => {
    const wav = join(t.ctx.env.DATA_DIR, 'dated.wav')
    const made = Bun.spawnSync([process.env.FFMPEG_PATH || '/usr/bin/ffmpeg', '-loglevel', 'error', '-y', '-i', files.wav, '-metadata', 'title=Wav Song', '-metadata', 'artist=Wav Artist', '-metadata', 'date=1999', '-metadata', 'track=3', wav])
    expect(made.exitCode).toBe(0)
    const res = await postForm(alice, '/api/music/tags', musicForm({}, { path: wav }))
    expect(await res.json()).toEqual({ title: 'Wav Song', artist: 'Wav Artist', album: null, grouping: null, artworkUrl: null, year: 1999, trackNumber: 3 })
  })

  test('all null for a file without tags or not audio; 422 without a file', async () => {
    const none = { title: null, artist: null, album: null, grouping: null, artworkUrl: null }
    expect(await (await postForm(alice, '/api/music/tags', musicForm({}, { path: files.wav }))).json()).toEqual(none)
    const text = join(t.ctx.env.DATA_DIR, 'notes.txt')
    writeFileSync(text, 'hello')
    expect(await (await postForm(alice, '/api/music/tags', musicForm({}, { path: text }))).json()).toEqual(none)
    await expectError(postForm(alice, '/api/music/tags', musicForm({ title: 'x' })), 422, 'file: Required')
    await expectError(alice.post('/api/music/tags', {}), 415)
  })
})
