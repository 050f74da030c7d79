import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { axeFindings, type Finding } from '../support/axe.ts'
import { launchBrowser } from '../support/browser.ts'
import { adminCommand, createUser, e2eFolders, openLoggedInPage, screenshot, type WatchedPage } from '../support/e2e.ts'
import { type ServerProcess, startServerProcess } from '../support/server-process.ts'
import { startSmtp, type TestSmtp } from '../support/smtp.ts'
import { ensureWebBuild } from '../support/web-build.ts'

// The admin page and the notifications tab end to end: the built app in
// Chromium against the server process, an SMTP catcher and an ntfy-like
// receiver on 127.0.0.1 (which also answers 404 for a music link, so a job fails).

const ADMIN = { email: 'boss@example.com', password: 'boss-password-1' }
const USER = { email: 'listener@example.com', password: 'listener-password-1' }
const DESKTOP = { width: 1280, height: 860 }

const ntfy: { topic: string; title: string; message: string }[] = []
const receiver = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(req) {
    const path = new URL(req.url).pathname
    if (req.method === 'POST' && path === '/') {
      ntfy.push(await req.json())
      return Response.json({ ok: true })
    }
    return new Response('Not Found', { status: 404 })
  },
})
const receiverUrl = `http://127.0.0.1:${receiver.port}`

let smtp: TestSmtp
let server: ServerProcess
let browser: Browser
let folders: ReturnType<typeof e2eFolders> | undefined
const opened: WatchedPage[] = []

beforeAll(async () => {
  folders = e2eFolders('admin-e2e')
  const env = { DATA_DIR: folders.dataDir }
  ;[smtp] = await Promise.all([startSmtp(), ensureWebBuild(), adminCommand(['create-user', ADMIN.email, ADMIN.password, '--admin'], env)])
  await createUser(folders.dataDir, USER.email, USER.password)
  ;[server, browser] = await Promise.all([
    startServerProcess({ DATA_DIR: folders.dataDir, SMTP_URL: smtp.url, FETCH_ALLOW_HOSTS: '127.0.0.1', RATE_LIMIT_MAX: '1000' }),
    launchBrowser(),
  ])
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await smtp?.stop()
  receiver.stop(true)
  folders?.remove()
})

async function shot(page: Page, name: string) {
  await screenshot(page, name, { networkIdle: true, fullPage: true })
}

const findings: Finding[] = []

async function open(account: { email: string; password: string }) {
  // bypassCSP: the injected axe-core script (tests/support/axe.ts)
  const watched = await openLoggedInPage(browser, { baseURL: server.url, viewport: DESKTOP, bypassCSP: true }, account)
  opened.push(watched)
  return watched
}

/** A music job of the normal user that fails (its link answers 404), made over the API. */
async function failingJob(page: Page) {
  const status = await page.evaluate(async (url) => {
    const form = new FormData()
    for (const [k, v] of Object.entries({ video_url: url, title: 'Gone Song', artist: 'Nobody', album: 'Lost' })) form.append(k, v)
    const res = await fetch('/api/music/jobs/create', { method: 'POST', body: form })
    return res.status
  }, `${receiverUrl}/missing.mp3`)
  expect(status).toBe(201)
}

describe('admin page and notifications in the browser', () => {
  test('a normal user: no Admin entry, /admin refused; notifications tab with a test message received', async () => {
    const { page, pageErrors } = await open(USER)
    await failingJob(page)
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' }).count()).toBe(0)
    await page.goto('/admin')
    await page.waitForURL((url) => url.pathname === '/music/downloader')
    expect(await page.evaluate(async () => (await fetch('/api/admin/status')).status)).toBe(403)

    await page.goto('/account')
    await page.getByRole('tab', { name: 'Notifications' }).click()
    await page.getByLabel('ntfy topic URL').fill(`${receiverUrl}/tunefeed-e2e`)
    await page.getByText('New videos from followed channels (one message per refresh)').click()
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByText('Notifications Updated').waitFor()
    await page.getByRole('button', { name: 'Send test' }).click()
    await page.getByText('Test message sent').waitFor()
    expect(ntfy).toContainEqual(expect.objectContaining({ topic: 'tunefeed-e2e', title: 'Tunefeed test' }))
    await shot(page, 'account-notifications')
    findings.push(...(await axeFindings(page, '/account notifications')))
    // the settings are kept
    await page.reload()
    await page.getByRole('tab', { name: 'Notifications' }).click()
    // shown masked (scheme and host only); saving again without touching it keeps the topic
    expect(await page.getByLabel('ntfy topic URL').inputValue()).toBe(receiverUrl)
    expect(await page.getByRole('checkbox', { name: /New videos/ }).isChecked()).toBe(false)
    await page.getByText('New videos from followed channels (one message per refresh)').click()
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByText('Notifications Updated').waitFor()
    ntfy.length = 0
    await page.getByRole('button', { name: 'Send test' }).click()
    await page.getByText('Test message sent. ntfy answered 200.').waitFor()
    expect(ntfy).toContainEqual(expect.objectContaining({ topic: 'tunefeed-e2e', title: 'Tunefeed test' }))
    expect(pageErrors).toEqual([])
  }, 120_000)

  test('an admin: Status, Jobs (the failed job with its reason and owner), Schedules, Users, Mail', async () => {
    const { page, pageErrors } = await open(ADMIN)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' }).click()
    await page.waitForURL((url) => url.pathname === '/admin')
    await page.getByRole('heading', { name: 'Admin' }).waitFor()
    await page.getByText('Feeds only (no API key)').waitFor()
    expect(await page.getByText(/0 of 10000 units/).count()).toBe(1)
    // WebSub in one line: off, since the test server's PUBLIC_URL is a loopback address
    await page.getByText('Off (PUBLIC_URL is not a public address): channels are polled hourly').waitFor()
    await page.waitForFunction(() => document.title.startsWith('Admin'))
    // tools: the managed yt-dlp is off in tests (no update to check); cookies set from a file, then removed
    expect(await page.getByRole('button', { name: 'Update now' }).isDisabled()).toBe(true)
    // yt-dlp's JavaScript runtime in words: the npm package's Deno (or one on PATH), supported
    await page.getByText(/Supported Deno 2\.9\.6 \((found on PATH|from the deno npm package)\)/).waitFor()
    // the canary: not run yet; run now, its result in words (the e2e server's canary URL has nothing behind it)
    await page.getByText('Not run yet').waitFor()
    await page.getByRole('button', { name: 'Run canary now' }).click()
    await page.getByText(/^Failed \(network\) on yt-dlp .*: YouTube could not be reached from the server/).waitFor({ timeout: 60_000 })
    // the State above agrees with the canary (never "Working" above a failed one); yt-dlp's own words one step away
    await page.getByTestId('youtube-state').getByText('Not working').waitFor()
    expect(await page.getByTestId('youtube-state').textContent()).toContain('YouTube could not be reached from the server')
    expect(await page.getByText(/^ERROR: /).isVisible()).toBe(false)
    await page.getByText('What yt-dlp said').click()
    await page.getByText(/^ERROR: /).waitFor()
    // the yt-dlp in use by its real origin (Debian's, the managed copy being off here), and its age
    expect(await page.getByTestId('ytdlp-in-use').textContent()).toMatch(/^2023\.03\.04 \(the system's yt-dlp, released 2023-03-04\)$/)
    await page.getByTestId('ytdlp-warning').getByText(/^yt-dlp 2023\.03\.04 is [\d,]+ days old: /).waitFor()
    const cookiesFile = join(folders!.workDir, 'cookies.txt')
    await Bun.write(cookiesFile, '# Netscape HTTP Cookie File\n.youtube.com\tTRUE\t/\tTRUE\t2147483647\tPREF\tf6=40000000\n.youtube.com\tTRUE\t/\tTRUE\t2147483647\tSID\tsecret-value\n')
    await page.getByText("Every user's lookups and downloads act as the account these cookies belong to", { exact: false }).waitFor()
    await page.getByLabel('Cookies file (Netscape cookies.txt, at most 1 MB)').setInputFiles(cookiesFile)
    await page.getByRole('button', { name: 'Set cookies' }).click()
    await page.getByText(/^2 cookies for youtube\.com \(set /).waitFor()
    expect(await page.getByText('secret-value').count()).toBe(0)
    await shot(page, 'admin-status')
    findings.push(...(await axeFindings(page, '/admin Status')))
    await page.getByRole('button', { name: 'Remove cookies' }).click()
    await page.getByRole('button', { name: 'Set cookies' }).waitFor()

    await page.getByRole('tab', { name: 'Jobs' }).click()
    const row = page.getByRole('row').filter({ hasText: USER.email })
    // the job may still be running its attempts: the tab re-reads the jobs while shown
    await row.waitFor({ timeout: 30_000 })
    expect(await row.textContent()).toContain('music.run')
    expect((await row.textContent())!.length).toBeGreaterThan(40)
    await shot(page, 'admin-jobs')
    findings.push(...(await axeFindings(page, '/admin Jobs')))

    await page.getByRole('tab', { name: 'Schedules' }).click()
    await page.getByRole('button', { name: 'Run now: music.cleanup.daily' }).click()
    await page.getByText('music.cleanup.daily queued').waitFor()
    // the tab re-reads the schedules while shown
    await page.getByRole('row').filter({ hasText: 'music.cleanup.daily' }).getByText('Completed').waitFor({ timeout: 20_000 })
    await shot(page, 'admin-schedules')
    findings.push(...(await axeFindings(page, '/admin Schedules')))

    await page.getByRole('tab', { name: 'Users' }).click()
    await page.getByLabel('Search users').fill('listener')
    const user = page.getByRole('row').filter({ hasText: USER.email })
    await user.waitFor()
    // the search is applied a moment after typing stops
    await page.getByRole('row').filter({ hasText: ADMIN.email }).waitFor({ state: 'detached' })
    await user.getByRole('button', { name: `Grant admin to ${USER.email}` }).click()
    await user.getByRole('button', { name: `Revoke admin from ${USER.email}` }).waitFor()
    await user.getByRole('button', { name: `Revoke admin from ${USER.email}` }).click()
    await user.getByRole('button', { name: `Disable ${USER.email}` }).click()
    await user.getByText('Disabled').waitFor()
    // the normal user's open page is signed out at once
    expect(await opened[0]!.page.evaluate(async () => (await fetch('/api/auth/session')).status)).toBe(401)
    await user.getByRole('button', { name: `Enable ${USER.email}` }).click()
    await user.getByRole('button', { name: `Disable ${USER.email}` }).waitFor()
    // the last admin cannot step down
    await page.getByLabel('Search users').fill('boss')
    await page.getByRole('button', { name: `Revoke admin from ${ADMIN.email}` }).click()
    await page.getByText('Cannot remove the last admin.').waitFor()
    await page.getByLabel('Search users').fill('')
    await page.getByRole('row').filter({ hasText: USER.email }).waitFor()
    await shot(page, 'admin-users')
    findings.push(...(await axeFindings(page, '/admin Users')))
    await page.getByRole('button', { name: `Delete ${USER.email}` }).click()
    const dialog = page.getByRole('alertdialog')
    await dialog.getByText(USER.email).waitFor()
    await shot(page, 'admin-users-delete')
    findings.push(...(await axeFindings(page, '/admin delete dialog')))
    await dialog.getByRole('button', { name: 'Delete' }).click()
    await dialog.waitFor({ state: 'detached' })
    await page.getByRole('row').filter({ hasText: USER.email }).waitFor({ state: 'detached' })

    await page.getByRole('tab', { name: 'Mail' }).click()
    await page.getByText(`127.0.0.1:${smtp.port}`).waitFor()
    await page.getByRole('button', { name: 'Send a test mail to me' }).click()
    await page.getByText(`Test mail sent to ${ADMIN.email}.`).waitFor()
    // the canary's failure above also mailed the admins: take the test mail itself
    expect((await smtp.nextMail(ADMIN.email, { subject: 'Tunefeed test mail' })).subject).toBe('Tunefeed test mail')
    await shot(page, 'admin-mail')
    findings.push(...(await axeFindings(page, '/admin Mail')))

    // keyboard: the tabs are reached and switched with the arrow keys
    await page.getByRole('tab', { name: 'Mail' }).focus()
    await page.keyboard.press('ArrowLeft')
    await page.getByRole('tab', { name: 'Users', selected: true }).waitFor({ timeout: 5_000 })
    await page.getByLabel('Search users').waitFor()
    expect(pageErrors).toEqual([])
    // axe-core: no serious or critical WCAG A/AA finding on any tab (nor the notifications tab)
    expect(findings).toEqual([])
  }, 180_000)
})
