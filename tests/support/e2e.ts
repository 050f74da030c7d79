import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core'
import { REPO_ROOT, run } from './server-process.ts'

// What the end-to-end files (tests/e2e/) share: folders, an account made
// before the server starts, and a logged-in page that reports its errors.

export const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots')

/**
 * Waits until the page's finite CSS transitions and animations (a dialog opening, a toast, a
 * button's colour leaving its loading state) have finished, at most `capMs`, then two frames:
 * what a screenshot or axe's contrast check reads is what a person sees. Endless animations
 * (spinners) are not waited for. Instead of a fixed pause before each screenshot.
 */
export async function settle(page: Page, capMs = 1_500): Promise<void> {
  await page.evaluate(async (cap) => {
    const finite = document.getAnimations().filter((a) => a.playState === 'running' && Number.isFinite(Number(a.effect?.getComputedTiming().endTime)))
    await Promise.race([Promise.all(finite.map((a) => a.finished.catch(() => {}))), new Promise((resolve) => setTimeout(resolve, cap))])
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))
  }, capMs)
}

/** A screenshot under docs/screenshots/, once the page has settled. */
export async function screenshot(page: Page, name: string, opts: { fullPage?: boolean; networkIdle?: boolean } = {}): Promise<void> {
  if (opts.networkIdle) await page.waitForLoadState('networkidle')
  await settle(page)
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: opts.fullPage })
}

/** The screenshots folder, and fresh data and work folders for one e2e file; `remove()` in afterAll. */
export function e2eFolders(name: string): { dataDir: string; workDir: string; remove(): void } {
  mkdirSync(SCREENSHOTS, { recursive: true })
  const dataDir = mkdtempSync(join(tmpdir(), `tunefeed-${name}-`))
  const workDir = mkdtempSync(join(tmpdir(), `tunefeed-${name}-files-`))
  return {
    dataDir,
    workDir,
    remove: () => {
      for (const dir of [dataDir, workDir]) rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Runs `scripts/admin.ts` on a data folder (before a server holds its lock); throws with its output on failure. */
export async function adminCommand(args: string[], env: Record<string, string>): Promise<void> {
  const result = await run([process.execPath, 'scripts/admin.ts', ...args], { LOG_LEVEL: 'silent', ...env }, 120_000)
  if (result.code !== 0) throw new Error(`${args[0]} failed: ${result.stdout}\n${result.stderr}`)
}

/** A verified account, made on the data folder before the server holds its lock. */
export function createUser(dataDir: string, email: string, password: string): Promise<void> {
  return adminCommand(['create-user', email, password], { DATA_DIR: dataDir })
}

export interface WatchedPage {
  context: BrowserContext
  page: Page
  /** Uncaught errors of the page. */
  pageErrors: string[]
  /** Console errors, except the resource errors Chromium logs for 4xx answers the page expects. */
  consoleProblems: string[]
}

/**
 * A browser context on the server with one page, logged in as `email` (it
 * lands on the music downloader). Requests past loopback are aborted (the
 * YouTube IFrame API, fonts, anything): nothing leaves 127.0.0.1.
 */
export async function openLoggedInPage(
  browser: Browser,
  options: BrowserContextOptions & { baseURL: string },
  account: { email: string; password: string },
): Promise<WatchedPage> {
  const context = await browser.newContext(options)
  const page = await context.newPage()
  const watched: WatchedPage = { context, page, pageErrors: [], consoleProblems: [] }
  page.on('pageerror', (err) => watched.pageErrors.push(err.message))
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) watched.consoleProblems.push(msg.text())
  })
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/]|localhost[:/]|\[::1\])/, (route) => route.abort())

  await page.goto('/login')
  await page.getByLabel('Email').fill(account.email)
  await page.getByLabel('Password').fill(account.password)
  await page.getByRole('button', { name: 'Submit' }).click()
  await page.waitForURL((url) => url.pathname === '/music/downloader')
  return watched
}

/**
 * Runs one step of a browser test; when it throws, the error also says where the page
 * was and what it showed (its URL, title and the start of its text), so a failure seen
 * only in CI's output can be told apart: a page that moved to /login, a blank page, an
 * error screen.
 */
export async function onPage<T>(page: Page, step: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    const where = await page
      .evaluate(() => ({ url: location.href, title: document.title, text: (document.body?.innerText ?? '').replace(/\s+/g, ' ').slice(0, 300) }))
      .catch((e: unknown) => ({ url: page.url(), title: '?', text: `(page not readable: ${e instanceof Error ? e.message.split('\n')[0] : e})` }))
    const message = err instanceof Error ? err.message.split('\n').slice(0, 3).join(' ') : String(err)
    throw new Error(`${step}: ${message} [page ${where.url} "${where.title}": ${where.text}]`)
  }
}
