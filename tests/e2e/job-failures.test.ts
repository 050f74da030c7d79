import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import type { MusicJob } from '../../src/music/schema.ts'
import { ERROR_SENTENCES } from '../../src/tools/failure.ts'
import { launchBrowser } from '../support/browser.ts'
import { createUser, e2eFolders, openLoggedInPage, SCREENSHOTS } from '../support/e2e.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../support/fake-ytdlp.ts'
import { type MediaServer, startMediaServer } from '../support/media.ts'
import { type ServerProcess, startServerProcess } from '../support/server-process.ts'
import { ensureWebBuild } from '../support/web-build.ts'

// A failed job's reason in the Music Downloader page: the server process runs a stand-in
// yt-dlp (tests/support/fake-ytdlp.ts) that prints YouTube's real bot-check and private-video
// texts; the row shows the sentence, and the red Failed button's tooltip says it too.

const EMAIL = 'failures-e2e@example.com'
const PASSWORD = 'failures-e2e-password'
const folders = e2eFolders('failures-e2e')

let media: MediaServer
let fake: FakeYtdlp
let server: ServerProcess
let browser: Browser
let context: BrowserContext
let page: Page

beforeAll(async () => {
  fake = startFakeYtdlp()
  ;[media] = await Promise.all([startMediaServer(), ensureWebBuild(), createUser(folders.dataDir, EMAIL, PASSWORD)])
  ;[server, browser] = await Promise.all([
    // the bot-check link is not YouTube's: no pause follows (src/tools/pace.test.ts covers that)
    startServerProcess({ DATA_DIR: folders.dataDir, FETCH_ALLOW_HOSTS: '127.0.0.1', RATE_LIMIT_MAX: '1000', YTDLP_PATH: fake.path, BOT_CHECK_PAUSE_SECONDS: '0' }),
    launchBrowser(),
  ])
  ;({ context, page } = await openLoggedInPage(browser, { baseURL: server.url, viewport: { width: 1280, height: 900 } }, { email: EMAIL, password: PASSWORD }))
}, 240_000)

afterAll(async () => {
  await context?.close()
  await browser?.close()
  await server?.stop()
  await media?.stop()
  fake?.stop()
  folders.remove()
})

async function createFailingJob(title: string, caseId: string): Promise<string> {
  const res = await page.request.post('/api/music/jobs/create', {
    multipart: { video_url: `${media.url}/fail/${caseId}`, title, artist: 'Some Artist', album: 'Some Album' },
  })
  expect(res.status()).toBe(201)
  return ((await res.json()) as { id: string }).id
}

async function waitFailed(id: string, timeoutMs = 30_000): Promise<MusicJob> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const res = await page.request.get('/api/music/jobs/list?page=1&per_page=50')
    const job = ((await res.json()) as { jobs: MusicJob[] }).jobs.find((j) => j.id === id)
    if (job?.failed) return job
    if (Date.now() > until) throw new Error(`job ${id} did not fail: ${JSON.stringify(job)}`)
    await page.waitForTimeout(200)
  }
}

describe('failed job rows', () => {
  test('the row and the Failed button say why, in the sentence for the kind', async () => {
    const privateId = await createFailingJob('Private Upload', 'private')
    const botId = await createFailingJob('Bot Checked Song', 'bot-check')
    await waitFailed(privateId)
    // a bot check fails the job at once (no retry: it would only dig deeper)
    await waitFailed(botId)

    const row = page.getByTestId('music-job').filter({ hasText: 'Private Upload' })
    await expect(row.getByTestId('job-error').textContent()).resolves.toBe(ERROR_SENTENCES.private)
    const botRow = page.getByTestId('music-job').filter({ hasText: 'Bot Checked Song' })
    await expect(botRow.getByTestId('job-error').textContent()).resolves.toBe(ERROR_SENTENCES.bot_check)
    expect(await botRow.getByTestId('job-error').getAttribute('data-error-kind')).toBe('bot_check')

    // the Failed button is described by the sentence (screen readers) and shows it on hover
    const failed = row.getByRole('button', { name: 'Failed' })
    expect(await failed.getAttribute('aria-describedby')).toBe(`job-error-${privateId}`)
    await failed.hover()
    // Ark opens on pointer movement over the trigger: move a little after arriving
    const box = (await failed.boundingBox())!
    await page.mouse.move(box.x + box.width / 2 + 3, box.y + box.height / 2 + 2, { steps: 3 })
    await expect(page.getByRole('tooltip').filter({ hasText: ERROR_SENTENCES.private }).waitFor({ timeout: 5000 })).resolves.toBeUndefined()
    await page.waitForTimeout(400)
    await page.screenshot({ path: join(SCREENSHOTS, 'music-job-failed-reason.png') })

    // the reason is there without hovering, too: keyboard users tab to the button
    // (once the hover's tooltip has closed: a focus during its close delay is lost in the closing)
    await page.mouse.move(0, 0)
    await page.getByRole('tooltip').filter({ hasText: ERROR_SENTENCES.private }).waitFor({ state: 'hidden', timeout: 5000 })
    await failed.focus()
    await expect(page.getByRole('tooltip').filter({ hasText: ERROR_SENTENCES.private }).waitFor({ timeout: 5000 })).resolves.toBeUndefined()
  }, 60_000)
})
