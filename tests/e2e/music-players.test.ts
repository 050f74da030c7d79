import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { axeFindings } from '../support/axe.ts'
import { launchBrowser } from '../support/browser.ts'
import { signUpOverHttp } from '../support/music.ts'
import { REPO_ROOT, type ServerProcess, startServerProcess } from '../support/server-process.ts'
import { ensureWebBuild } from '../support/web-build.ts'

// Account → Music Players in Chromium against the real server process: the server address and
// username to type into a player, an app password made, shown once and working on /rest,
// replaced (the old one stops), what players get (with the OpenSubsonic extensions the server
// advertises), and no serious accessibility finding.

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots')
let server: ServerProcess
let browser: Browser
let dataDir: string

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true })
  dataDir = mkdtempSync(join(tmpdir(), 'tunefeed-players-e2e-'))
  await ensureWebBuild()
  ;[server, browser] = await Promise.all([startServerProcess({ DATA_DIR: dataDir, RATE_LIMIT_MAX: '1000' }), launchBrowser()])
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

const ping = async (username: string, password: string) => {
  const res = await fetch(`${server.url}/rest/ping.view?${new URLSearchParams({ u: username, p: password, f: 'json', c: 'e2e', v: '1.16.1' })}`)
  return ((await res.json()) as { 'subsonic-response': { status: string } })['subsonic-response'].status
}

test('Music Players: address, username, an app password shown once that works in a player, replaced on demand', async () => {
  const cookie = await signUpOverHttp(server.url, dataDir)
  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 900 }, bypassCSP: true })
  const [name, value] = cookie.split('=') as [string, string]
  await context.addCookies([{ name, value, url: server.url }])
  const page = await context.newPage()
  const errors: string[] = []
  page.on('pageerror', (err) => errors.push(err.message))
  await page.goto('/account')
  await page.getByRole('tab', { name: 'Music Players' }).click()
  const address = page.getByRole('textbox', { name: 'Server address' })
  await address.waitFor()
  expect(await address.inputValue()).toBe(server.url)
  const username = await page.getByRole('textbox', { name: 'Username' }).inputValue()
  expect(username).toMatch(/@example\.com$/)
  await page.getByText('You have no app password yet.').waitFor()
  // what players get: the features, and the extensions as the server itself lists them
  await page.getByRole('heading', { name: 'What players get' }).waitFor()
  const supported = page.getByRole('region', { name: 'What players get' })
  for (const word of ['Podcasts:', 'Bookmarks:', 'Lyrics:', 'Transcoding:']) expect(await supported.innerText()).toContain(word)
  const advertised = await (await fetch(`${server.url}/rest/getOpenSubsonicExtensions?f=json&v=1.16.1&c=e2e`)).json()
  const names = (advertised as { 'subsonic-response': { openSubsonicExtensions: { name: string }[] } })['subsonic-response'].openSubsonicExtensions.map((e) => e.name)
  expect(names).toEqual(expect.arrayContaining(['songLyrics', 'transcodeOffset', 'indexBasedQueue']))
  const extensions = page.getByTestId('subsonic-extensions')
  await page.waitForFunction(() => !document.querySelector('[data-testid=subsonic-extensions]')?.textContent?.includes('loading'))
  expect(await extensions.locator('code').allInnerTexts()).toEqual(names)
  expect(await axeFindings(page, 'account music players')).toEqual([])

  await page.getByRole('button', { name: 'Make App Password' }).click()
  const field = page.getByRole('textbox', { name: 'New app password' })
  await field.waitFor()
  const first = await field.inputValue()
  expect(first).toMatch(/^[a-z2-7]{24}$/)
  expect(await ping(username, first)).toBe('ok')
  // the pointer leaves the button it clicked (a hovered button is not what the page looks like at rest)
  await page.mouse.move(0, 0)
  expect(await axeFindings(page, 'account music players with a new app password')).toEqual([])
  await page.waitForLoadState('networkidle')
  await page.screenshot({ path: join(SCREENSHOTS, 'account-music-players.png') })

  await page.getByRole('button', { name: 'Replace App Password' }).click()
  let second = first
  for (const until = Date.now() + 20_000; second === first && Date.now() < until; ) {
    await page.waitForTimeout(100)
    second = await page.getByRole('textbox', { name: 'New app password' }).inputValue()
  }
  expect(second).not.toBe(first)
  expect(await ping(username, first)).toBe('failed')
  expect(await ping(username, second)).toBe('ok')

  // the shown password is gone after a reload: it is shown once
  await page.reload()
  await page.getByRole('tab', { name: 'Music Players' }).click()
  await page.getByText(/You have an app password/).waitFor()
  expect(await page.getByRole('textbox', { name: 'New app password' }).count()).toBe(0)
  expect(errors).toEqual([])
  await context.close()
}, 120_000)
