import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createTestApp, signUp, type Client, type TestApp } from '../../tests/support/app.ts'
import { startMediaServer, type MediaServer } from '../../tests/support/media.ts'
import { scriptBuild, startReleaseServer, type ReleaseServer } from '../../tests/support/ytdlp-release.ts'
import { until } from '../../tests/support/wait.ts'
import { setAdmin } from '../auth/queries.ts'
import { toolErrorCases } from '../../tests/support/fake-ytdlp.ts'
import { BUILD_KINDS, hasMediaFormat, TEMPORARY_KINDS } from './canary.ts'

// The canary against local stand-ins: its URL is a page of the local media server, the yt-dlp
// builds are sh scripts served by the signed release stand-in (each runs Debian's yt-dlp, and
// fails the canary's URL the way a build would), the admins' webhook is a receiver on 127.0.0.1.
// Deadlines are far above a quiet machine's times (busy 2-core CI).
setDefaultTimeout(240_000)
const DEADLINE_MS = 180_000

let release: ReleaseServer
let media: MediaServer
let t: TestApp
let admin: Client
let receiver: ReturnType<typeof Bun.serve>
const hooks: { event: string; title: string; text: string }[] = []
let flag: string
let outdatedFlag: string

interface Canary {
  url: string
  ok: boolean | null
  checkedAt: string | null
  lastError: string | null
  toolOutput: string | null
}
interface Tools {
  ytDlp: { version: string | null; lastError: string | null; previousVersion: string | null; checkedAt: string | null }
  canary: Canary
}

async function tools(client = admin): Promise<Tools> {
  const res = await client.get('/api/admin/status')
  expect(res.status).toBe(200)
  return ((await res.json()) as { tools: Tools }).tools
}

const botText = toolErrorCases().find((c) => c.id === 'bot-check')!.text
const outdatedText = toolErrorCases().find((c) => c.id === 'extractor-bug')!.text

/**
 * A build that runs Debian's yt-dlp, except on the canary's URL: it fails as an outdated build
 * would while `outdatedFlag` exists (or always, with `outdated`); with `bot`, it meets YouTube's
 * bot check while `flag` exists (the build before it does not: as when YouTube asks one request
 * and lets the next through).
 */
const build = (version: string, opts: { outdated?: boolean; bot?: boolean } = {}) =>
  scriptBuild(
    version,
    `case "$*" in *canary=1*)
  if ${opts.outdated ? 'true' : `[ -e ${outdatedFlag} ]`}; then printf '%s\\n' ${JSON.stringify(outdatedText)} >&2; exit 1; fi
  if ${opts.bot ? `[ -e ${flag} ]` : 'false'}; then printf '%s\\n' ${JSON.stringify(botText)} >&2; exit 1; fi;;
esac
exec /usr/bin/yt-dlp "$@"`,
  )

/** Admin's update check, then the canary the update starts: resolves once both are done. */
async function updateThenCanary(done: (t: Tools) => boolean): Promise<Tools> {
  await until('no running check', () => !t.ctx.tools.managed.busy, DEADLINE_MS)
  const res = await admin.post('/api/admin/tools/ytdlp/update')

  if (res.status !== 202) throw new Error(`update answered ${res.status}`)
  return until('the update and its canary', async () => {
    const now = await tools()
    return !t.ctx.tools.managed.busy && done(now) ? now : null
  }, DEADLINE_MS, 200)
}

beforeAll(async () => {
  release = startReleaseServer()
  media = await startMediaServer()
  receiver = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      hooks.push((await req.json()) as (typeof hooks)[number])
      return new Response(null, { status: 204 })
    },
  })
  t = await createTestApp({
    env: {
      YTDLP_UPDATE: 'stable',
      YTDLP_RELEASE_URL: release.url,
      YTDLP_SIGNING_KEY: release.publicKey,
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      YTDLP_CANARY_URL: `${media.url}/page.html?canary=1`,
      BOT_CHECK_PAUSE_SECONDS: '2',
    },
  })
  flag = join(t.ctx.env.DATA_DIR, 'youtube-says-bot')
  outdatedFlag = join(t.ctx.env.DATA_DIR, 'build-is-outdated')
  let email: string
  ;({ client: admin, email } = await signUp(t))
  await setAdmin(t.ctx.db, email, true)
  expect((await admin.put('/api/notifications', { webhookUrl: `http://127.0.0.1:${receiver.port}/hook` })).status).toBe(200)
  // the start-up check found nothing to install
  await until('the start-up check', () => !t.ctx.tools.managed.busy && t.ctx.tools.managed.snapshot().checkedAt, DEADLINE_MS)
}, DEADLINE_MS)
afterAll(async () => {
  await t?.close()
  receiver?.stop(true)
  await Promise.all([release?.stop(), media?.stop()])
})

describe('the canary', () => {
  test('POST /api/admin/tools/canary → 202 runs it now; the result is in the status (admin only)', async () => {
    expect((await tools()).canary).toEqual({ url: `${media.url}/page.html?canary=1`, ok: null, checkedAt: null, lastError: null, toolOutput: null })
    const { client } = await signUp(t)
    expect((await client.post('/api/admin/tools/canary')).status).toBe(403)
    const res = await admin.post('/api/admin/tools/canary')
    expect(res.status).toBe(202)
    const canary = await until('the canary', async () => {
      const c = (await tools()).canary
      return c.checkedAt ? c : null
    }, DEADLINE_MS)
    expect(canary).toMatchObject({ ok: true, lastError: null })
    expect(Date.parse(canary.checkedAt!)).toBeGreaterThan(Date.now() - DEADLINE_MS)
  })

  test('an update that passes the canary stays', async () => {
    release.publish('yt-dlp', build('2025.10.01'))
    const before = (await tools()).canary.checkedAt
    const now = await updateThenCanary((s) => s.ytDlp.version === '2025.10.01' && s.canary.checkedAt !== before)
    expect(now.canary).toMatchObject({ ok: true, lastError: null })
    expect(now.ytDlp).toMatchObject({ version: '2025.10.01', lastError: null })
  })

  test('a new build that fails the canary as a build can, where the previous passes: switched back, lastError says why', async () => {
    release.publish('yt-dlp', build('2025.10.02', { outdated: true }))
    const now = await updateThenCanary((s) => s.ytDlp.version === '2025.10.01' && !!s.ytDlp.lastError)
    expect(now.ytDlp.lastError).toMatch(/^yt-dlp 2025\.10\.02 failed the canary \(outdated: ERROR: .*nsig.*\) but 2025\.10\.01 passed it: switched back to 2025\.10\.01\. /)
    expect(now.ytDlp.previousVersion).toBe('2025.10.02')
    expect(now.canary).toMatchObject({ ok: true, lastError: null, toolOutput: null })
    // the build rolled back from is not installed again
    await until('no running check', () => !t.ctx.tools.managed.busy, DEADLINE_MS)
    expect(await t.ctx.tools.managed.update('admin')).toBe('current')
    expect(hooks).toEqual([])
  })

  test('failing on the new build and on the one before: admins are told why; the new build stays', async () => {
    writeFileSync(outdatedFlag, '')
    try {
      release.publish('yt-dlp', build('2025.10.03'))
      const now = await updateThenCanary((s) => s.ytDlp.version === '2025.10.03' && s.canary.ok === false)
      // a sentence for a person; yt-dlp's own line apart
      expect(now.canary.lastError).toBe(
        'Failed (outdated) on yt-dlp 2025.10.03: yt-dlp is out of date for YouTube: update it from the admin page, or wait for a new release.',
      )
      expect(now.canary.toolOutput).toMatch(/^ERROR: \[youtube\] .*Unable to extract nsig function code/)
      expect(now.ytDlp.previousVersion).toBe('2025.10.01')
      const hook = await until('the admins\' notification', () => hooks.find((h) => h.event === 'tools.canary'), DEADLINE_MS)
      expect(hook.title).toBe('YouTube downloads fail: outdated')
      expect(hook.text).toContain('failed on yt-dlp 2025.10.03 after an update, and on the build before it too.')
    } finally {
      rmSync(outdatedFlag, { force: true })
    }
  })

  test('a bot check after an update neither switches back nor rejects the build; the canary tries again after the pause', async () => {
    writeFileSync(flag, '')
    try {
      release.publish('yt-dlp', build('2025.10.04', { bot: true }))
      const before = (await tools()).canary.checkedAt
      const failed = await updateThenCanary((s) => s.ytDlp.version === '2025.10.04' && s.canary.ok === false && s.canary.checkedAt !== before)
      expect(failed.canary.lastError).toMatch(/^Failed \(bot check\) on yt-dlp 2025\.10\.04: YouTube asked to confirm this is not a bot/)
      expect(failed.canary.toolOutput).toMatch(/not a bot/)
      // still the new build, with the one before kept for a rollback by hand, and nothing held against it
      expect(failed.ytDlp).toMatchObject({ version: '2025.10.04', previousVersion: '2025.10.03', lastError: null })
      const hook = await until('the admins\' notification', () => hooks.find((h) => h.event === 'tools.canary' && h.text.includes('2025.10.04')), DEADLINE_MS)
      expect(hook.text).toContain('The new build stays')
      expect(hook.text).not.toContain('the build before it too')
    } finally {
      rmSync(flag, { force: true })
    }
    // YouTube lets the server through again: the canary's next try (after the pause) passes on the same build
    const passed = await until('the canary tried again', async () => {
      const now = await tools()
      return now.canary.ok ? now : null
    }, DEADLINE_MS, 200)
    expect(passed.ytDlp).toMatchObject({ version: '2025.10.04', lastError: null })
    expect(passed.canary).toMatchObject({ ok: true, lastError: null, toolOutput: null })
  })
})

describe('after a failed update', () => {
  test('a successful update clears the previous failure at the switch, before the runtime checks that follow it', async () => {
    await until('no running check', () => !t.ctx.tools.managed.busy, DEADLINE_MS)
    // a build that does not pass its own self-test: the update fails and says why
    release.publish('yt-dlp', scriptBuild('2025.10.05', 'exit 1'))
    expect(await t.ctx.tools.managed.update('admin')).toBe('failed')
    expect((await tools()).ytDlp.lastError).toBeTruthy()
    // what the status says at the moment the new build becomes current (the runtime checks start then)
    const atSwitch: Tools[] = []
    const refresh = t.ctx.tools.refreshYtdlp.bind(t.ctx.tools)
    t.ctx.tools.refreshYtdlp = async () => {
      atSwitch.push(await tools())
      return refresh()
    }
    try {
      release.publish('yt-dlp', build('2025.10.06'))
      const now = await updateThenCanary((s) => s.ytDlp.version === '2025.10.06' && s.canary.ok === true)
      expect(now.ytDlp.lastError).toBeNull()
    } finally {
      t.ctx.tools.refreshYtdlp = refresh
    }
    expect(atSwitch.length).toBeGreaterThan(0)
    for (const s of atSwitch) expect(s.ytDlp.lastError).toBeNull()
  })
})

describe('which failures a build can cause', () => {
  test('bot checks, the network and timeouts are failures of the moment; outdated, missing runtime and crashes are the build\'s', () => {
    for (const kind of ['bot_check', 'network', 'timeout'] as const) expect({ kind, build: BUILD_KINDS.has(kind), temporary: TEMPORARY_KINDS.has(kind) }).toEqual({ kind, build: false, temporary: true })
    for (const kind of ['tool_outdated', 'tool_missing', 'internal'] as const) expect({ kind, build: BUILD_KINDS.has(kind), temporary: TEMPORARY_KINDS.has(kind) }).toEqual({ kind, build: true, temporary: false })
    // the canary's own video being private or blocked here is neither
    for (const kind of ['private', 'geo_blocked', 'sign_in_required'] as const) expect(BUILD_KINDS.has(kind) || TEMPORARY_KINDS.has(kind)).toBe(false)
  })
})

describe('hasMediaFormat', () => {
  test('audio or video formats pass; storyboard images alone do not', () => {
    const storyboard = { format_id: 'sb0', ext: 'mhtml', protocol: 'mhtml', url: 'https://i.ytimg.com/sb/x', vcodec: 'none', acodec: 'none' }
    expect(hasMediaFormat({ formats: [storyboard] })).toBe(false)
    expect(hasMediaFormat({ formats: [] })).toBe(false)
    expect(hasMediaFormat({ formats: [storyboard, { format_id: '251', ext: 'webm', url: 'https://x/a', vcodec: 'none', acodec: 'opus' }] })).toBe(true)
    // a single-file page (generic extractor) has its URL at the top
    expect(hasMediaFormat({ url: 'http://127.0.0.1/a.mp3', ext: 'mp3' })).toBe(true)
  })
})
