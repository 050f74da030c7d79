import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestApp, signUp, type Client, type TestApp } from '../../tests/support/app.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../../tests/support/fake-ytdlp.ts'
import { makeTone, startMediaServer, type MediaServer } from '../../tests/support/media.ts'
import { musicForm, postForm, waitForJob } from '../../tests/support/music.ts'
import { setAdmin } from '../auth/queries.ts'
import { lookupFailure } from '../music/schema.ts'
import { JS_RUNTIME_MISSING } from './failure.ts'
import { denoFromPackage } from './js-runtime.ts'

// The runtime in the running app: GET /api/admin/status, /api/health, the arguments every yt-dlp
// call gets and what a YouTube link job does without a supported runtime. yt-dlp is the stand-in
// (tests/support/fake-ytdlp.ts): its `-v` header runs the runtime it is handed (the real Deno of the
// npm package) and says `(unsupported)` when told to; YouTube watch links are mapped to a tone on
// the loopback media server, so nothing leaves this machine.
setDefaultTimeout(60_000)

const realDeno = denoFromPackage()!
const watch = (id: string) => `https://www.youtube.com/watch?v=${id}`
const SENTENCE = 'YouTube downloads need Deno 2.3 or later, or Node 22 or later.'

interface JsStatus {
  name: string | null
  version: string | null
  path: string | null
  source: string | null
  supported: boolean
}

let media: MediaServer
let work: string
let source: string

async function adminOf(t: TestApp): Promise<Client> {
  const { client, email } = await signUp(t)
  await setAdmin(t.ctx.db, email, true)
  return client
}

async function jsStatus(admin: Client): Promise<JsStatus> {
  const res = await admin.get('/api/admin/status')
  expect(res.status).toBe(200)
  return ((await res.json()) as { tools: { jsRuntime: JsStatus } }).tools.jsRuntime
}

async function health(t: TestApp) {
  const res = await t.app.request('/api/health')
  return { status: res.status, body: (await res.json()) as Record<string, string> }
}

async function runJob(client: Client, videoUrl: string) {
  const res = await postForm(client, '/api/music/jobs/create', musicForm({ video_url: videoUrl, title: 'Song', artist: 'Band', album: 'Record' }))
  expect(res.status).toBe(201)
  return waitForJob(client, ((await res.json()) as { id: string }).id, 45_000)
}

const appEnv = (fake: FakeYtdlp, more: Record<string, string> = {}) => ({
  // www.youtube.com is allowed by name: the URL guard does not resolve it, and nothing fetches it
  FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com',
  YTDLP_PATH: fake.path,
  SPONSORBLOCK_URL: 'http://127.0.0.1:9',
  ...more,
})

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tunefeed-js-app-'))
  media = await startMediaServer()
  await makeTone(join(work, 'tone.mp3'), 3)
  media.addFile('tone.mp3', join(work, 'tone.mp3'))
  source = `${media.url}/files/tone.mp3`
}, 60_000)
afterAll(async () => {
  await media?.stop()
  rmSync(work, { recursive: true, force: true })
})

describe('a supported Deno, then a yt-dlp update that refuses it', () => {
  let t: TestApp
  let fake: FakeYtdlp
  let refusing: FakeYtdlp
  let admin: Client
  beforeAll(async () => {
    fake = startFakeYtdlp({ version: '2026.08.19', urls: { [watch('tunefeedJsA')]: source } })
    refusing = startFakeYtdlp({ version: '2026.09.01', unsupported: ['deno'], urls: { [watch('tunefeedJsB')]: source } })
    t = await createTestApp({ env: appEnv(fake) })
    admin = await adminOf(t)
  }, 60_000)
  afterAll(async () => {
    await t?.close()
    fake?.stop()
    refusing?.stop()
  })

  test('the admin status names the Deno in use; health is ok; yt-dlp was asked for its verdict', async () => {
    const js = await jsStatus(admin)
    expect(js).toMatchObject({ name: 'deno', version: '2.9.6', supported: true })
    expect(js.source).toBeOneOf(['path', 'package'])
    expect(await health(t)).toMatchObject({ status: 200, body: { status: 'ok', jsRuntime: 'ok' } })
    expect(fake.calls()[1]).toEqual(['-v', '--ignore-config', '--no-js-runtimes', '--js-runtimes', `deno:${js.path}`])
  })

  test('a YouTube link job runs with `--no-js-runtimes --js-runtimes deno:<path>`; no call carries bun:', async () => {
    const job = await runJob(admin, watch('tunefeedJsA'))
    expect(job.completed).toMatch(/Z$/)
    const args = fake.calls().find((a) => a.at(-1) === watch('tunefeedJsA'))!
    expect(args.slice(args.indexOf('--no-js-runtimes'), args.indexOf('--no-js-runtimes') + 3)).toEqual(['--no-js-runtimes', '--js-runtimes', `deno:${t.ctx.tools.js!.path}`])
    for (const call of fake.calls()) expect(call.join(' ')).not.toContain('bun:')
  })

  test('after an update to a yt-dlp that marks it unsupported: health degraded with the sentence, YouTube jobs fail as tool_missing, other links work', async () => {
    // what Toolbox.refreshYtdlp does after a managed switch, here with YTDLP_PATH pointing elsewhere
    ;(t.ctx.env as { YTDLP_PATH?: string }).YTDLP_PATH = refusing.path
    await t.ctx.tools.refreshYtdlp()
    expect(refusing.calls()).toContainEqual(['-v', '--ignore-config', '--no-js-runtimes', '--js-runtimes', `deno:${t.ctx.tools.js!.path}`])
    expect(await jsStatus(admin)).toMatchObject({ name: 'deno', version: '2.9.6', supported: false })
    const h = await health(t)
    expect(h.status).toBe(503)
    expect(h.body).toMatchObject({ status: 'degraded', jsRuntime: SENTENCE })

    const failed = await runJob(admin, watch('tunefeedJsB'))
    expect(failed).toMatchObject({ errorKind: 'tool_missing', error: SENTENCE, completed: null })
    expect(failed.failed).toMatch(/Z$/)
    // refused before yt-dlp ran
    expect(refusing.calls().some((a) => a.includes(watch('tunefeedJsB')))).toBe(false)

    // the form's look-up of a YouTube link says the same, not "the downloader is not installed"
    const look = await admin.get(`/api/music/lookup?video_url=${encodeURIComponent(watch('tunefeedJsC'))}`)
    expect(look.status).toBe(400)
    expect(await look.json()).toEqual({ detail: 'Unable to get video info.' })
    expect(look.headers.get('x-error-kind')).toBe('tool_missing')
    expect(look.headers.get('x-error-reason')).toBe(SENTENCE)
    expect(lookupFailure(look.headers.get('x-error-kind'), look.headers.get('x-error-reason'))).toBe(
      `Nothing could be read at this link: ${SENTENCE} Tell an admin.`,
    )
    // a look-up that fails for another reason carries no reason header: its kind's sentence stands
    const gone = await admin.get(`/api/music/lookup?video_url=${encodeURIComponent(`${media.url}/files/missing.mp3`)}`)
    expect(gone.status).toBe(400)
    expect(gone.headers.get('x-error-reason')).toBeNull()

    const other = await runJob(admin, source)
    expect(other.completed).toMatch(/Z$/)
    expect(other.error).toBeNull()
  })
})

describe('YTDLP_JS_RUNTIME set to this machine’s Node 20', () => {
  test('used as given (source setting), reported unsupported; health degraded with the sentence', async () => {
    // Debian's yt-dlp 2023.03.04 knows no --js-runtimes: no verdict, the published range decides
    const t = await createTestApp({ env: { YTDLP_JS_RUNTIME: 'node:/usr/bin/node' } })
    try {
      const js = await jsStatus(await adminOf(t))
      expect(js).toMatchObject({ name: 'node', path: '/usr/bin/node', source: 'setting', supported: false })
      expect(js.version).toStartWith('20.')
      expect(await health(t)).toMatchObject({ status: 503, body: { status: 'degraded', jsRuntime: JS_RUNTIME_MISSING } })
    } finally {
      await t.close()
    }
  })
})

describe('issue 25 finding 11: tools get a minimal environment', () => {
  const SECRETS: Record<string, string> = {
    APP_SECRET: 'leaked-app-secret-0123456789-0123456789',
    OIDC_CLIENT_SECRET: 'leaked-oidc-secret',
    DATABASE_URL: 'postgres://leaked:password@127.0.0.1:5432/db',
    SMTP_URL: 'smtp://leaked:password@127.0.0.1:25',
    YOUTUBE_API_KEY: 'leaked-api-key',
    TUNEFEED_SOMETHING_ELSE: 'leaked-other',
  }
  const ALLOWED = new Set(['PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'TZ', 'BUN_BE_BUN'])
  // what sh adds by itself when it runs the recording wrappers
  const SHELL = new Set(['PWD', 'SHLVL', '_', 'OLDPWD'])
  let t: TestApp
  let fake: FakeYtdlp
  let saved: Record<string, string | undefined>
  const denoLog = () => join(work, 'deno-env.txt')
  const ffmpegLog = () => join(work, 'ffmpeg-env.txt')

  /** A wrapper that appends its environment (NUL-separated, one record per run) to `log`, then runs `real`. */
  function recorder(name: string, real: string, log: string) {
    const path = join(work, name)
    writeFileSync(path, `#!/bin/sh\nenv -0 >> ${JSON.stringify(log)}\nprintf '\\001' >> ${JSON.stringify(log)}\nexec ${JSON.stringify(real)} "$@"\n`)
    chmodSync(path, 0o755)
    return path
  }
  const runs = (log: string) =>
    readFileSync(log, 'utf8')
      .split('\u0001')
      .filter(Boolean)
      .map((run) => Object.fromEntries(run.split('\0').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])) as Record<string, string>)

  beforeAll(async () => {
    fake = startFakeYtdlp({ version: '2026.08.19', urls: { [watch('tunefeedEnv')]: source } })
    writeFileSync(denoLog(), '')
    writeFileSync(ffmpegLog(), '')
    t = await createTestApp({
      env: appEnv(fake, {
        YTDLP_JS_RUNTIME: `deno:${recorder('deno', realDeno, denoLog())}`,
        FFMPEG_PATH: recorder('ffmpeg', '/usr/bin/ffmpeg', ffmpegLog()),
      }),
    })
    // the server's own secrets, in the environment the tools would inherit
    saved = Object.fromEntries(Object.keys(SECRETS).map((k) => [k, process.env[k]]))
    Object.assign(process.env, SECRETS)
  }, 60_000)
  afterAll(async () => {
    for (const [k, v] of Object.entries(saved ?? {})) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
    await t?.close()
    fake?.stop()
  })

  test('yt-dlp, its JavaScript runtime and ffmpeg get PATH, a private HOME and TMPDIR, the locale; none of the server’s variables', async () => {
    const { client } = await signUp(t)
    // the verdict (yt-dlp runs the runtime), then a whole job (yt-dlp, then ffmpeg)
    await t.ctx.tools.refreshJsRuntime()
    const job = await runJob(client, watch('tunefeedEnv'))
    expect(job.completed).toMatch(/Z$/)

    const ytdlp = fake.environments().filter((e) => e.args.includes(watch('tunefeedEnv')) || e.args.includes('-v'))
    const deno = runs(denoLog())
    const ffmpeg = runs(ffmpegLog())
    expect(ytdlp.length).toBeGreaterThanOrEqual(2)
    expect(deno.length).toBeGreaterThanOrEqual(1)
    expect(ffmpeg.length).toBeGreaterThanOrEqual(1)
    const tmp = join(t.ctx.env.DATA_DIR, 'tmp')
    for (const [tool, env] of [...ytdlp.map((e) => ['yt-dlp', e.env] as const), ...deno.map((e) => ['deno', e] as const), ...ffmpeg.map((e) => ['ffmpeg', e] as const)]) {
      const extra = Object.keys(env).filter((k) => !ALLOWED.has(k) && !SHELL.has(k))
      expect({ tool, extra }).toEqual({ tool, extra: [] })
      const leaked = Object.values(env).filter((v) => /leaked/.test(v))
      expect({ tool, leaked }).toEqual({ tool, leaked: [] })
      expect(env.PATH).toBeString()
      expect(env.LANG).toBeString()
      expect(env.HOME).not.toBe(process.env.HOME)
    }
    // yt-dlp and its runtime: HOME and TMPDIR under DATA_DIR/tmp, private
    for (const env of ytdlp.map((e) => e.env)) expect({ HOME: env.HOME, TMPDIR: env.TMPDIR }).toEqual({ HOME: join(tmp, 'home'), TMPDIR: tmp })
    expect(deno.some((env) => env.HOME === join(tmp, 'home') && env.TMPDIR === tmp)).toBe(true)
    // the app's own `--version` checks: a private folder of the process
    for (const env of [...deno, ...ffmpeg]) if (env.HOME !== join(tmp, 'home')) expect(statSync(env.HOME!).mode & 0o777).toBe(0o700)
    expect(statSync(join(tmp, 'home')).mode & 0o777).toBe(0o700)
  })
})
