import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createTestApp, signUp, type Client, type TestApp } from '../../tests/support/app.ts'
import { startFakeYtdlp, toolErrorCases, type FakeYtdlp } from '../../tests/support/fake-ytdlp.ts'
import { startMediaServer, testMedia, type MediaServer, type TestMedia } from '../../tests/support/media.ts'
import { musicForm, postForm, waitForJob } from '../../tests/support/music.ts'
import { AUDIO_FORMAT } from '../tools/ytdlp.ts'
import { ERROR_SENTENCES, TRANSIENT_KINDS, type ErrorKind } from '../tools/failure.ts'

// Every failure kind end to end: a stand-in yt-dlp on YTDLP_PATH prints each real text of
// tests/fixtures/tool-errors.json and exits as yt-dlp does; the job list shows kind and sentence.
setDefaultTimeout(60_000)

let t: TestApp
let media: MediaServer
let files: TestMedia
let fake: FakeYtdlp
let alice: Client

const fields = { title: 'T', artist: 'A', album: 'B' }

async function createJob(client: Client, form: FormData) {
  const res = await postForm(client, '/api/music/jobs/create', form)
  expect(res.status).toBe(201)
  return ((await res.json()) as { id: string }).id
}

const callsFor = (url: string) => fake.calls().filter((args) => args.at(-1) === url && !args.includes('-J'))

beforeAll(async () => {
  ;[media, files] = await Promise.all([startMediaServer(), testMedia()])
  fake = startFakeYtdlp({ version: '2025.12.08' })
  // no YouTube pause after bot checks here (src/tools/pace.test.ts covers it); these links are not YouTube's anyway
  t = await createTestApp({ env: { FETCH_ALLOW_HOSTS: '127.0.0.1', YTDLP_PATH: fake.path, JOB_CONCURRENCY: '8', BOT_CHECK_PAUSE_SECONDS: '0' }, queue: { retryDelayMs: 100 } })
  ;({ client: alice } = await signUp(t))
}, 60_000)
afterAll(async () => {
  await t?.close()
  await media?.stop()
  fake?.stop()
})

describe('failure reasons through the API', () => {
  test('every yt-dlp text gives its errorKind and sentence; transient kinds are retried, permanent ones are not', async () => {
    const cases = toolErrorCases().filter((c) => c.tool === 'yt-dlp')
    const jobs = await Promise.all(
      cases.map(async (c) => {
        const url = `${media.url}/fail/${c.id}`
        return { c, url, id: await createJob(alice, musicForm({ ...fields, video_url: url })) }
      }),
    )
    for (const { c, url, id } of jobs) {
      const job = await waitForJob(alice, id, 30_000)
      expect({ id: c.id, kind: job.errorKind, error: job.error }).toEqual({
        id: c.id,
        // a full disk is `internal` in the API (its kinds are fixed), told by its own sentence
        kind: c.kind === 'disk_full' ? 'internal' : (c.kind as ErrorKind),
        error: ERROR_SENTENCES[c.kind as ErrorKind],
      })
      expect(job.failed).toMatch(/Z$/)
      expect(job.completed).toBeNull()
      // three attempts (1 s, then 2 s apart) for a transient kind, one for the others; an outdated
      // yt-dlp is retried only after an update, and YTDLP_PATH (this stand-in) is never updated
      const retried = TRANSIENT_KINDS.has(c.kind as ErrorKind) && c.kind !== 'tool_outdated'
      expect({ id: c.id, calls: callsFor(url).length }).toEqual({ id: c.id, calls: retried ? 3 : 1 })
    }
  })

  test('a network failure that clears on a later attempt ends completed', async () => {
    const url = `${media.url}/flaky/2/network/page.html`
    const job = await waitForJob(alice, await createJob(alice, musicForm({ ...fields, video_url: url })), 30_000)
    expect(job.failed).toBeNull()
    expect(job.completed).toMatch(/Z$/)
    expect(job.error).toBeNull()
    expect(job.errorKind).toBeNull()
    expect(callsFor(url)).toHaveLength(3)
  })

  test('the arguments that reach yt-dlp: the chosen JavaScript runtime (never Bun), HTTP(S)-only formats, --max-filesize, no config file', async () => {
    const args = fake.calls().find((a) => a.at(-1)?.endsWith('/page.html'))!
    const at = (flag: string) => args[args.indexOf(flag) + 1]
    expect(args).toContain('--ignore-config')
    expect(args).toContain('--no-js-runtimes')
    const js = t.ctx.tools.js!
    expect(js).toMatchObject({ name: 'deno', supported: true })
    expect(at('--js-runtimes')).toBe(`deno:${js.path}`)
    expect(args.join(' ')).not.toContain('bun:')
    expect(at('--max-filesize')).toBe(String(t.ctx.env.MAX_UPLOAD_BYTES))
    expect(args).toContain('--hls-prefer-native')
    const format = at('-f')!
    expect(format).toBe(AUDIO_FORMAT)
    // every alternative is limited to a protocol over HTTP: http(s), http_dash_segments, m3u8 (native)
    for (const alt of format.split('/')) expect(alt).toMatch(/^(bestaudio|best)\[protocol\^=(http|m3u8)\]$/)
    expect(args.join(' ')).not.toMatch(/rtmp|rtsp|mms|--downloader|--external-downloader|--exec/)
  })

  test('an upload ffmpeg cannot read fails as conversion, at once', async () => {
    const bad = join(files.dir, 'broken.wav')
    const header = Buffer.alloc(44)
    header.write('RIFF', 0)
    header.writeUInt32LE(36 + 4000, 4)
    header.write('WAVEfmt ', 8)
    writeFileSync(bad, Buffer.concat([header, Buffer.alloc(4000, 0x5a)]))
    const job = await waitForJob(alice, await createJob(alice, musicForm(fields, { path: bad, type: 'audio/wav' })))
    expect(job.errorKind).toBe('conversion')
    expect(job.error).toBe(ERROR_SENTENCES.conversion)
  })
})

describe('a missing ffmpeg', () => {
  let bare: TestApp
  beforeAll(async () => {
    bare = await createTestApp({ env: { FFMPEG_PATH: join(files.dir, 'no-such-ffmpeg') } })
  })
  afterAll(() => bare?.close())

  test('/api/health names it; an upload job fails with tool_missing and its sentence', async () => {
    const health = await bare.app.request('/api/health')
    expect(health.status).toBe(503)
    const body = (await health.json()) as Record<string, string>
    expect(body.status).toBe('degraded')
    expect(body.ffmpeg).toMatch(/ffmpeg is missing/)
    expect(body.database).toBe('ok')
    const { client } = await signUp(bare)
    const job = await waitForJob(client, await createJob(client, musicForm(fields, { path: files.mp3, type: 'audio/mpeg' })))
    expect(job.errorKind).toBe('tool_missing')
    expect(job.error).toBe(ERROR_SENTENCES.tool_missing)
  })
})

describe('no yt-dlp anywhere', () => {
  let bare: TestApp
  beforeAll(async () => {
    // managed copy off, and a PATH without yt-dlp
    bare = await createTestApp({ env: { YTDLP_UPDATE: 'off', PATH: files.dir, FFMPEG_PATH: '/usr/bin/ffmpeg', FETCH_ALLOW_HOSTS: '127.0.0.1' } })
  })
  afterAll(() => bare?.close())

  test('/api/health names it; a link job fails at once with tool_missing; an upload still works', async () => {
    const body = (await (await bare.app.request('/api/health')).json()) as Record<string, string>
    expect(body.ytdlp).toMatch(/yt-dlp is missing/)
    expect(body.ffmpeg).toBe('ok')
    const { client } = await signUp(bare)
    const link = await waitForJob(client, await createJob(client, musicForm({ ...fields, video_url: `${media.url}/page.html` })))
    expect(link.errorKind).toBe('tool_missing')
    expect(link.error).toBe(ERROR_SENTENCES.tool_missing)
    const upload = await waitForJob(client, await createJob(client, musicForm(fields, { path: files.mp3, type: 'audio/mpeg' })))
    expect(upload.completed).toMatch(/Z$/)
  })
})

describe('a job over its time limit', () => {
  let slow: TestApp
  beforeAll(async () => {
    slow = await createTestApp({ env: { YTDLP_PATH: fake.path, JOB_TIMEOUT_SECONDS: '2', FETCH_ALLOW_HOSTS: '127.0.0.1' } })
  })
  afterAll(() => slow?.close())

  test('fails as timeout, its yt-dlp stopped', async () => {
    const { client } = await signUp(slow)
    const url = `${media.url}/sleep/20000/never`
    const started = Date.now()
    const job = await waitForJob(client, await createJob(client, musicForm({ ...fields, video_url: url })))
    expect(job.errorKind).toBe('timeout')
    expect(job.error).toBe(ERROR_SENTENCES.timeout)
    expect(Date.now() - started).toBeLessThan(15_000)
  })
})
