import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Browser, type BrowserContext, chromium } from 'playwright-core'
import { CHROMIUM_PATH, launchBrowser } from '../support/browser.ts'
import { onPage } from '../support/e2e.ts'
import { signUpOverHttp } from '../support/music.ts'
import { REPO_ROOT, type ServerProcess, startServerProcess } from '../support/server-process.ts'
import { ensureWebBuild } from '../support/web-build.ts'

// The app installs on a phone: manifest, service worker (app shell only), share target.

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots')
let server: ServerProcess
let browser: Browser
let dataDir: string
let cookie: string

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true })
  dataDir = mkdtempSync(join(tmpdir(), 'tunefeed-install-e2e-'))
  await ensureWebBuild()
  ;[server, browser] = await Promise.all([startServerProcess({ DATA_DIR: dataDir, RATE_LIMIT_MAX: '1000' }), launchBrowser()])
  cookie = await signUpOverHttp(server.url, dataDir)
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

/** Closes a browser context, or fails saying so when Chromium does not let it go in time. */
async function closeWithin(context: BrowserContext, ms: number) {
  let timer: Timer | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the browser context did not close within ${ms / 1000} s`)), ms)
  })
  try {
    await Promise.race([context.close(), late])
  } finally {
    clearTimeout(timer)
  }
}

async function signedIn(viewport = { width: 390, height: 844 }) {
  const context = await browser.newContext({ baseURL: server.url, viewport, isMobile: true, hasTouch: true })
  const [name, value] = cookie.split('=') as [string, string]
  await context.addCookies([{ name, value, url: server.url }])
  return context
}

describe('installable app', () => {
  test('manifest with the required fields, a registered worker with a fetch handler, no installability errors', async () => {
    // a profile on disk: Chromium does not offer to install from an incognito context
    const profile = mkdtempSync(join(tmpdir(), 'tunefeed-profile-'))
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'],
      headless: true,
      baseURL: server.url,
    })
    const [name, value] = cookie.split('=') as [string, string]
    await context.addCookies([{ name, value, url: server.url }])
    const page = await context.newPage()
    await page.goto('/')
    const href = await page.locator('link[rel="manifest"]').getAttribute('href')
    const res = await page.request.get(href!)
    expect(res.headers()['content-type']).toContain('application/manifest+json')
    const manifest = await res.json()
    expect(manifest).toMatchObject({ name: 'Tunefeed', short_name: 'Tunefeed', display: 'standalone', start_url: '/' })
    expect(manifest.theme_color).toMatch(/^#/)
    const sizes = manifest.icons.map((i: { sizes: string }) => i.sizes)
    expect(sizes).toContain('192x192')
    expect(sizes).toContain('512x512')
    for (const icon of manifest.icons) expect((await page.request.get(icon.src)).status()).toBe(200)
    expect(manifest.share_target).toMatchObject({ action: '/music/downloader', method: 'GET' })

    const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope)
    expect(scope).toBe(`${server.url}/`)
    // Chromium's own installability check (manifest fields, icons, worker with a fetch handler)
    const cdp = await context.newCDPSession(page)
    await page.reload()
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null)
    const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as { installabilityErrors: unknown[] }
    expect(installabilityErrors).toEqual([])
    await context.close()
    rmSync(profile, { recursive: true, force: true })
  }, 60_000)

  test('the worker keeps the app shell (it opens offline) and never stores API answers', async () => {
    const context = await signedIn()
    const page = await context.newPage()
    await onPage(page, 'the first visit', async () => {
      await page.goto('/music/downloader')
      await page.getByRole('heading', { name: 'Music Downloader', level: 1 }).waitFor({ timeout: 45_000 })
    })
    // the worker registers after the page's load event, installs the shell, then claims the page
    await onPage(page, 'the worker takes the page', () =>
      page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 45_000, polling: 200 }),
    )
    await onPage(page, 'the reload through the worker', async () => {
      await page.reload()
      await page.getByRole('heading', { name: 'Music Downloader', level: 1 }).waitFor({ timeout: 45_000 })
    })
    // a feed or Subsonic address opened in a tab is not the app: it never replaces the kept shell
    await page.goto('/rest/ping.view')
    await page.goto('/feeds/not-a-secret/all.xml')
    const shell = await page.evaluate(async () => (await caches.match('/'))?.headers.get('content-type') ?? null)
    expect(shell).toStartWith('text/html')
    await onPage(page, 'back to the app', async () => {
      await page.goto('/music/downloader')
      await page.getByRole('heading', { name: 'Music Downloader', level: 1 }).waitFor({ timeout: 45_000 })
    })
    const cached = await page.evaluate(async () => {
      const urls: string[] = []
      for (const name of await caches.keys()) for (const req of await (await caches.open(name)).keys()) urls.push(new URL(req.url).pathname)
      return urls
    })
    expect(cached).toContain('/')
    expect(cached.some((p) => p.startsWith('/assets/'))).toBe(true)
    expect(cached.filter((p) => p.startsWith('/api'))).toEqual([])
    await context.setOffline(true)
    await onPage(page, 'the offline reload', async () => {
      await page.reload()
      // the page and its scripts come from the cache: the app renders without a network
      // (the app then runs: its session check fails without a network, so it may move on to /login)
      await page.waitForFunction(() => (document.getElementById('root')?.childElementCount ?? 0) > 0, undefined, { timeout: 45_000 })
      await page.waitForFunction(() => document.title.endsWith('Tunefeed'), undefined, { timeout: 45_000 })
    })
    expect(new URL(page.url()).origin).toBe(server.url)
    // back online before closing: a context closed while offline with a service worker running
    // once hung Chromium 156 past the test's time (the close never returned; the suite's runs
    // of 27 Nov: all 5 assertions had passed), which also took the next test's browser down
    await context.setOffline(false)
    await closeWithin(context, 20_000)
  }, 120_000)

  test('a share opens the Music Downloader with the link in Video URL, also from shared text', async () => {
    const context = await signedIn()
    const page = await context.newPage()
    const link = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ'
    const videoUrl = page.getByRole('textbox', { name: 'Video URL' })
    // the form fills the field from the address once it has rendered: wait for the value, not the field
    const hasLink = () =>
      page.waitForFunction(
        (value) => [...document.querySelectorAll('input')].some((el) => el.value === value),
        link,
        { timeout: 45_000, polling: 100 },
      )
    await onPage(page, 'a shared link', async () => {
      await page.goto(`/music/downloader?sharedTitle=${encodeURIComponent('Never Gonna')}&videoUrl=${encodeURIComponent(link)}`)
      await videoUrl.waitFor({ timeout: 45_000 })
      await hasLink()
    })
    expect(await videoUrl.inputValue()).toBe(link)
    // Android apps often share "title + link" as text only
    await onPage(page, 'shared text', async () => {
      await page.goto(`/music/downloader?sharedText=${encodeURIComponent(`Listen to this! ${link} via the app`)}`)
      await videoUrl.waitFor({ timeout: 45_000 })
      await hasLink()
    })
    expect(await videoUrl.inputValue()).toBe(link)
    await page.screenshot({ path: join(SCREENSHOTS, 'share-target-phone.png') })
    await context.close()
  }, 120_000)
})
