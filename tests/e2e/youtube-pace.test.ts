import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import type { MusicJob } from '../../src/music/schema.ts'
import { WAITING_SENTENCES } from '../../src/music/queries.ts'
import { launchBrowser } from '../support/browser.ts'
import { adminCommand, e2eFolders, openLoggedInPage, SCREENSHOTS } from '../support/e2e.ts'
import { startFakeYtdlp, type FakeYtdlp } from '../support/fake-ytdlp.ts'
import { type MediaServer, startMediaServer } from '../support/media.ts'
import { type ServerProcess, startServerProcess } from '../support/server-process.ts'
import { ensureWebBuild } from '../support/web-build.ts'

// A bot check seen in the browser: the stand-in yt-dlp answers YouTube's bot-check text for one
// watch link; the job fails at once, YouTube downloads pause (10 minutes here), the next YouTube
// job's row says it waits and why, and the admin page says YouTube is paused, in words.

const EMAIL = 'pace-e2e@example.com'
const PASSWORD = 'pace-e2e-password'
const folders = e2eFolders('pace-e2e')
const watch = (id: string) => `https://www.youtube.com/watch?v=${id}`

let media: MediaServer
let fake: FakeYtdlp
let server: ServerProcess
let browser: Browser
let context: BrowserContext
let page: Page

beforeAll(async () => {
  media = await startMediaServer()
  fake = startFakeYtdlp({ urls: { [watch('e2eBotCheck')]: `${media.url}/fail/bot-check`, [watch('e2eWaiting1')]: `${media.url}/page.html` } })
  await Promise.all([ensureWebBuild(), adminCommand(['create-user', EMAIL, PASSWORD, '--admin'], { DATA_DIR: folders.dataDir })])
  ;[server, browser] = await Promise.all([
    startServerProcess({
      DATA_DIR: folders.dataDir,
      FETCH_ALLOW_HOSTS: '127.0.0.1,www.youtube.com',
      RATE_LIMIT_MAX: '1000',
      YTDLP_PATH: fake.path,
      BOT_CHECK_PAUSE_SECONDS: '600',
    }),
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

async function createJob(title: string, url: string): Promise<string> {
  const res = await page.request.post('/api/music/jobs/create', { multipart: { video_url: url, title, artist: 'Some Artist', album: 'Some Album' } })
  expect(res.status()).toBe(201)
  return ((await res.json()) as { id: string }).id
}

async function job(id: string): Promise<MusicJob | undefined> {
  const res = await page.request.get('/api/music/jobs/list?page=1&per_page=50')
  return ((await res.json()) as { jobs: MusicJob[] }).jobs.find((j) => j.id === id)
}

async function until(what: string, fn: () => Promise<boolean>, ms = 30_000) {
  const end = Date.now() + ms
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await page.waitForTimeout(200)
  }
}

describe('a bot check in the browser', () => {
  test('the job fails at once, the next YouTube job waits and says why, the admin page says YouTube is paused', async () => {
    const bot = await createJob('Bot Checked Song', watch('e2eBotCheck'))
    await until('the bot-checked job to fail', async () => !!(await job(bot))?.failed)
    expect((await job(bot))?.errorKind).toBe('bot_check')

    const waiting = await createJob('Patient Song', watch('e2eWaiting1'))
    await until('the job to wait', async () => (await job(waiting))?.waiting?.reason === 'pause')
    const row = page.getByTestId('music-job').filter({ hasText: 'Patient Song' })
    await row.getByTestId('job-waiting').waitFor({ timeout: 10_000 })
    expect(await row.getByTestId('job-waiting').textContent()).toStartWith(WAITING_SENTENCES.pause)
    expect(await row.getByRole('button', { name: 'Waiting' }).count()).toBe(1)
    await row.scrollIntoViewIfNeeded()
    await row.screenshot({ path: join(SCREENSHOTS, 'music-job-waiting-for-youtube.png') })

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' }).click()
    await page.waitForURL((url) => url.pathname === '/admin')
    const paused = page.getByTestId('youtube-paused')
    await paused.waitFor({ timeout: 10_000 })
    expect(await paused.textContent()).toContain('YouTube asked this server to confirm it is not a bot, so YouTube downloads are paused until')
    // what YouTube said, cut to the sentence that says it
    expect(await paused.textContent()).toContain('What YouTube said: [youtube] dQw4w9WgXcQ: Sign in to confirm you’re not a bot.')
    expect(await paused.textContent()).not.toContain('--cookies')
    expect(await page.getByText(/Downloads and look-ups start at least 0 seconds apart, at most 250 an hour; \d+ in the last hour\./).count()).toBe(1)
    expect(await page.getByText('Off: set YTDLP_POT_PROVIDER_URL', { exact: false }).count()).toBe(1)
    await page.screenshot({ path: join(SCREENSHOTS, 'admin-youtube-paused.png'), fullPage: true })
  }, 90_000)
})
